"""tests.integration: QEMU integration tests driving the kernel's shell over the serial console."""
