"""Example machines that show what fsm-runner reports when a test fails."""
