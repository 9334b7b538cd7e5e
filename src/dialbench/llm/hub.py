"""Where a Hugging Face model comes from, settled before any work: a folder, the hub cache, or the
hub itself when it answers. Without this, `from_pretrained` of a model this machine cannot get
retried for a minute and ended in two tracebacks, after the work before it was done."""

from __future__ import annotations

from pathlib import Path

from dialbench.errors import DialbenchError

PROBE_TIMEOUT_S = 10.0


def hub_model(name: str, field: str) -> str:
    """What to load `name` from: the folder it names (relative to the working directory), the
    snapshot in the hub cache, or the hub id once the hub has answered that it has it. Else a
    one-line error saying what to do; `field` says where the name was given."""
    if Path(name).exists():
        return str(Path(name).resolve())
    from huggingface_hub import constants, model_info, try_to_load_from_cache
    from huggingface_hub.errors import GatedRepoError, HFValidationError, RepositoryNotFoundError

    try:
        cached = try_to_load_from_cache(name, "config.json")
    except HFValidationError:
        raise DialbenchError(f"{field}: {name!r} is no folder here, nor a hub id") from None
    if isinstance(cached, str):
        return str(Path(cached).parent)
    fix = f"download it where the hub is reachable (hf download {name}) or give a folder"
    where = f"{field}: {name!r} is no folder here and not in the Hugging Face cache"
    if constants.HF_HUB_OFFLINE:
        cache = constants.HF_HUB_CACHE
        raise DialbenchError(f"{where} ({cache}), and HF_HUB_OFFLINE is set: {fix}")
    try:
        model_info(name, timeout=PROBE_TIMEOUT_S)
    except GatedRepoError:
        raise DialbenchError(
            f"{where}, and it is gated on {constants.ENDPOINT}: accept its terms there and log "
            "in (hf auth login)"
        ) from None
    except RepositoryNotFoundError:
        raise DialbenchError(f"{where}, nor a model on {constants.ENDPOINT}") from None
    except Exception as error:  # anything that keeps the hub from answering: DNS, proxy, timeout
        raise DialbenchError(
            f"{where}, and {constants.ENDPOINT} cannot be reached ({type(error).__name__}): {fix}"
        ) from None
    return name
