//! A log subscriber that builds the real one (`tracing_subscriber::fmt`, with its span
//! registry) the first time something at or above its level is logged: a `kpty talk` that
//! logs nothing — most of them — does not pay for setting up a registry on every start.
//! Until then only the level is consulted; from then on every call goes to the real
//! subscriber, so spans and events see one subscriber throughout.

use std::sync::OnceLock;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::filter::LevelFilter;

/// The subscriber, built on first use by `build`.
pub(crate) struct Lazy<S> {
    level: LevelFilter,
    build: fn(LevelFilter) -> S,
    real: OnceLock<S>,
}

impl<S: Subscriber> Lazy<S> {
    /// Log at `level` and above through what `build` makes, once something is logged.
    pub(crate) fn new(level: LevelFilter, build: fn(LevelFilter) -> S) -> Self {
        Self {
            level,
            build,
            real: OnceLock::new(),
        }
    }

    fn real(&self) -> &S {
        self.real.get_or_init(|| (self.build)(self.level))
    }
}

impl<S: Subscriber> Subscriber for Lazy<S> {
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        if self.enabled(meta) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        meta.level() <= &self.level
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(self.level)
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        self.real().new_span(span)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        self.real().record(span, values);
    }

    fn record_follows_from(&self, span: &Id, follows: &Id) {
        self.real().record_follows_from(span, follows);
    }

    fn event(&self, event: &Event<'_>) {
        self.real().event(event);
    }

    fn enter(&self, span: &Id) {
        self.real().enter(span);
    }

    fn exit(&self, span: &Id) {
        self.real().exit(span);
    }

    fn clone_span(&self, id: &Id) -> Id {
        self.real().clone_span(id)
    }

    fn try_close(&self, id: Id) -> bool {
        self.real().try_close(id)
    }

    fn current_span(&self) -> tracing_core::span::Current {
        match self.real.get() {
            Some(real) => real.current_span(),
            None => tracing_core::span::Current::none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A writer into a shared buffer.
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    static OUT: OnceLock<Buf> = OnceLock::new();

    fn build(level: LevelFilter) -> impl Subscriber {
        let out = OUT.get_or_init(Buf::default).clone();
        tracing_subscriber::fmt()
            .with_writer(move || out.clone())
            .with_ansi(false)
            .with_max_level(level)
            .finish()
    }

    #[test]
    fn nothing_is_built_until_something_is_logged_then_it_logs_as_the_real_one() {
        let lazy = Lazy::new(LevelFilter::WARN, build);
        let lazy = Arc::new(lazy);
        let dispatch = tracing::Dispatch::from(lazy.clone());
        tracing::dispatcher::with_default(&dispatch, || {
            tracing::info!("below the level");
            let span = tracing::info_span!("quiet");
            let _in = span.enter();
            assert!(lazy.real.get().is_none(), "built for nothing");
            tracing::warn!(code = 7, "a warning");
            let span = tracing::warn_span!("loud", n = 1);
            span.in_scope(|| tracing::error!("inside"));
        });
        assert!(lazy.real.get().is_some());
        let text = String::from_utf8(OUT.get().unwrap().0.lock().unwrap().clone()).unwrap();
        assert!(text.contains("WARN") && text.contains("a warning") && text.contains("code=7"));
        assert!(
            text.contains("loud{n=1}") && text.contains("inside"),
            "{text}"
        );
        assert!(!text.contains("below the level"), "{text}");
    }
}
