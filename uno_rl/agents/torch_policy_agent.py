"""Any PyTorch module as an agent: ``torch:MODULE.pt`` (strategy ``torch``).

The module protocol: ``forward`` maps a float32 tensor of observations ``(k, O)`` (the acting
seats' :func:`~uno_rl.core.observe.observe` vectors) to action logits ``(k, A)`` (or to a
tuple whose first element they are, as ``(logits, value)``), O and A the widths of the rules'
layout (583 and 77 for the classic deck, 877 and 122 for the extended one). The file is
either TorchScript (``torch.jit.save(torch.jit.script(module), PATH)``, which needs none of
the code that made it) or a whole module pickled by ``torch.save(module, PATH)``. Loading a
pickled module runs code from that file, and needs its class importable under the name it
was saved with: name only files you trust. A file holding a ``state_dict`` is refused (it
has weights but no network).

The agent plays the legal action of the highest logit; ``greedy=false`` draws one from the
softmax of the legal logits with the caller's generator. Before any game the module is run
once on observations of the rules' width: a module that reads another width, or scores
another number of actions, is refused in one line that names both::

    torch:policy.pt                 # the best legal action
    torch:policy.pt,greedy=false    # sampled
    torch:file=policy.pt
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path

import numpy as np
import torch

from uno_rl.core.layout import CLASSIC, EXTENDED

from .base import AgentError, Param
from .model_agents import ModelAgent, cached
from .own_agents import error_line

__all__ = ["TorchPolicyAgent", "load_module"]


def _is_torchscript(path: Path) -> bool:
    """Whether a file is a TorchScript archive (it holds the module's code)."""
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    return any(n.endswith("/constants.pkl") or "/code/" in n for n in names)


def load_module(path: Path) -> torch.nn.Module:
    """The module a file holds (TorchScript or pickled), on the CPU, in eval mode; one
    :class:`AgentError` line otherwise."""
    where = f"agent 'torch': {path}"
    try:
        if _is_torchscript(path):
            found = torch.jit.load(str(path), map_location="cpu")
        else:
            try:  # tensors and plain containers only: no code runs
                found = torch.load(path, map_location="cpu", weights_only=True)
            except pickle.UnpicklingError:  # a pickled module: its class's code runs
                found = torch.load(path, map_location="cpu", weights_only=False)
    except (AttributeError, ModuleNotFoundError) as error:
        raise AgentError(
            f"{where} could not be loaded: {error_line(error)} (a module saved with "
            "torch.save needs its class importable; TorchScript, torch.jit.save, needs none)"
        ) from None
    except Exception as error:
        raise AgentError(f"{where} could not be loaded: {error_line(error)}") from None
    if not isinstance(found, torch.nn.Module):
        what = "a dict (a state_dict?)" if isinstance(found, dict) else type(found).__name__
        raise AgentError(
            f"{where} holds {what}, not a module: save the module itself, "
            "torch.jit.save(torch.jit.script(module), PATH) or torch.save(module, PATH)"
        )
    return found.eval()


def _layout_of(width: int) -> str:
    """`` (the classic layout's)`` where ``width`` is a layout's observation width."""
    for layout in (CLASSIC, EXTENDED):
        if width == layout.obs_size:
            return f" (the {layout.name} layout's)"
    return ""


def _input_width(module: torch.nn.Module) -> int | None:
    """The width the module's first layer reads (``in_features``), where it says."""
    for part in module.modules():
        width = getattr(part, "in_features", None)
        if isinstance(width, int):
            return width
    return None


class TorchPolicyAgent(ModelAgent):
    """A PyTorch module file that maps observations to action logits (the module docstring)."""

    name = "torch"
    summary = "a PyTorch module file mapping observations to action logits (torch:MODULE.pt)"
    PARAMS = {
        "file": Param("", "the module file: TorchScript or torch.save(module)"),
        "greedy": Param(
            True, "play the legal action of the highest logit (false: sample the legal softmax)"
        ),
    }

    def __init__(self, rules, **params):
        super().__init__(rules, **params)
        #: The module, shared by the agents of one file.
        self.module = cached("torch", self.path, load_module)
        layout = rules.layout
        what = f"agent 'torch': module {self.path}"
        wanted = f"the rules' deck {rules.deck!r} ({layout.name} layout) has"
        try:
            logits = self._logits(np.zeros((2, layout.obs_size), np.float32))
        except AgentError:
            raise
        except Exception as error:
            width = _input_width(self.module)
            if width is not None and width != layout.obs_size:
                raise AgentError(
                    f"{what} reads observations of {width} values{_layout_of(width)}; "
                    f"{wanted} {layout.obs_size}"
                ) from None
            raise AgentError(
                f"{what} fails on observations of {layout.obs_size} values ({wanted} "
                f"{layout.obs_size}): {error_line(error)}"
            ) from None
        if logits.shape != (2, layout.num_actions):
            count = logits.shape[1] if logits.ndim == 2 and len(logits) == 2 else None
            raise AgentError(
                f"{what} gives {count} logits a row; {wanted} {layout.num_actions} actions"
                if count is not None
                else f"{what} gives logits of shape {tuple(logits.shape)} for 2 observations; "
                f"expected (2, {layout.num_actions})"
            )

    @torch.no_grad()
    def _logits(self, observations: np.ndarray) -> np.ndarray:
        out = self.module(torch.from_numpy(observations))
        if isinstance(out, tuple | list):
            out = out[0]
        if not isinstance(out, torch.Tensor):
            raise AgentError(
                f"agent 'torch': module {self.path} returns {type(out).__name__}, not a tensor"
            )
        return out.detach().double().numpy()

    def scores(self, observations):
        """(k, A) float64 logits of the module."""
        return self._logits(observations)
