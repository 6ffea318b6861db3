//! insta snapshots of help texts and JSON shapes.
