"""Evidence of runs: the run directory, its report, JUnit XML, and reading a run directory back."""

from fsm_runner.evidence.junit import junit_text, junit_tree, write_junit
from fsm_runner.evidence.reload import LoadedRun, load_run
from fsm_runner.evidence.report import render_report, write_report
from fsm_runner.evidence.run_dir import RunDirectory, new_run_id, run_dir_name

__all__ = [
    "LoadedRun",
    "RunDirectory",
    "junit_text",
    "junit_tree",
    "load_run",
    "new_run_id",
    "render_report",
    "run_dir_name",
    "write_junit",
    "write_report",
]
