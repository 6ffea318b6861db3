complete --keep-order --exclusive --command kpty --arguments "(COMPLETE=fish kpty -- (commandline --current-process --tokenize --cut-at-cursor) (commandline --current-token))"
