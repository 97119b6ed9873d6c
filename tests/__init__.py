"""tests: the host-side test suite of ftrace-os (pytest); a package so `import tests.console` always finds ours."""
