"""tests.kernel: pytest side of the in-kernel self-tests (the C cases in this directory are built into the kernel)."""
