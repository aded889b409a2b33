"""Known errors of the PlantCLEF commands -> one line with a stable code and the documented exit code."""

from __future__ import annotations

import functools
import sys

import click

from agrieval.baselines._sbatch import EXIT_REQUEUE, StopRequested
from agrieval.baselines.plantclef._prior import PriorError
from agrieval.baselines.plantclef.classes import MappingError
from agrieval.baselines.submission import SubmissionFailsValidation
from agrieval.scoring.cli._failures import error_line
from agrieval.scoring.runtime.coded_error import CodedError


class InputProblem(click.ClickException):
    """A usage or input problem of this command: ``error [code] message``, exit 2."""

    exit_code = 2

    def __init__(self, message: str, code: str = "bad_input"):
        super().__init__(message)
        self.code = code


def input_codes() -> dict[type, str]:
    """Error class -> the stable code of its line; the most specific class of an error wins (its MRO)."""
    # Imported when a command runs: some of these modules import torch.
    from agrieval.baselines._device import DeviceError
    from agrieval.baselines.plantclef._image_stats import StatsError
    from agrieval.baselines.plantclef._loader import ImageListError
    from agrieval.baselines.plantclef.model import CheckpointError
    from agrieval.baselines.plantclef.predict import ResumeError
    from agrieval.baselines.plantclef.tile_scores import TileScoresError

    return {CheckpointError: "checkpoint_invalid", MappingError: "class_mapping_invalid",
            ImageListError: "images_invalid", PriorError: "prior_invalid", TileScoresError: "tile_scores_invalid",
            StatsError: "stats_invalid", ResumeError: "resume_mismatch", FileExistsError: "output_exists",
            DeviceError: "device_unavailable", ValueError: "bad_option"}


def code_of(exc: BaseException, codes: dict[type, str]) -> str | None:
    """The code of the most specific class of ``exc`` in ``codes``; None for an error nobody expects."""
    return next((codes[k] for k in type(exc).__mro__ if k in codes), None)


def guard(fn):
    """Known errors -> one clean line and the documented exit code, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except StopRequested as exc:  # a scheduler's warning: the job script requeues the task, which resumes
            click.echo(f"stopped: {exc}", err=True)
            sys.exit(EXIT_REQUEUE)
        except SubmissionFailsValidation as exc:
            click.echo(error_line("submission_rejected", str(exc)), err=True)
            sys.exit(1)
        except (CodedError, click.ClickException):
            raise  # its code and exit code are its own: the root's one mapping prints it (scoring/cli/group.py)
        except Exception as exc:
            code = code_of(exc, input_codes())
            if code is None:
                raise
            raise InputProblem(str(exc), code) from None

    return wrapper
