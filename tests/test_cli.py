from fsm_runner.cli import EXIT_USAGE, main


def test_no_command_prints_help_and_exits_with_usage_code() -> None:
    assert main([]) == EXIT_USAGE
