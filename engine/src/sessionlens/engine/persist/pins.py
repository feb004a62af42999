"""The pins of a session, remembered in SessionLens's own state folder.

Pins are the user's, not the agent's: they are never written into the transcript (pi and
OpenClaw have no field for them), but into a small sidecar file under ``state/pins/``, one
per session file, named by a hash of the file's resolved path and holding its session id.
Every function takes that state folder (the app's, or ``user_folders(--basedir).state``);
None means the user's own.
A different session that later takes the same path (a rotated or replaced file) does not
inherit them: pins recorded for another session id are ignored. Each update is a
read-modify-write under the sidecar's lock, written atomically.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from sessionlens.engine._io.atomic import atomic_write_text
from sessionlens.engine._io.folders import user_folders
from sessionlens.engine.errors import PersistError
from sessionlens.engine.model import Transcript

from .guard import hold_lock

__all__ = ["PinSet", "add_pins", "load_pins", "pins_path", "remove_pins", "save_pins",
           "unknown_pins"]

_VERSION = 1


@dataclass(frozen=True, slots=True)
class PinSet:
    """The pinned entry ids of one session file, in the order they were pinned."""

    path: Path
    session_id: str | None
    entry_ids: tuple[str, ...] = ()

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self.entry_ids


def _identity(transcript: Transcript) -> tuple[Path, str | None]:
    return Path(transcript.path).expanduser().resolve(), transcript.session_id


def pins_path(transcript: Transcript, state_dir: Path | str | None = None) -> Path:
    """The sidecar that holds ``transcript``'s pins (it may not exist yet)."""
    path, _ = _identity(transcript)
    digest = hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:32]
    state = Path(state_dir) if state_dir is not None else user_folders().state
    return state / "pins" / f"{digest}.json"


def _read(sidecar: Path, path: Path, session_id: str | None) -> tuple[str, ...]:
    try:
        data = json.loads(sidecar.read_text("utf-8"))
    except FileNotFoundError:
        return ()
    except (OSError, ValueError) as exc:
        raise PersistError(sidecar, f"cannot read the pins of {path.name}: {exc}") from exc
    if not isinstance(data, dict) or data.get("session_id") != session_id or (
            data.get("path") != str(path)):
        return ()  # another session now lives at this path: its pins are not these
    ids = data.get("pins")
    return tuple(dict.fromkeys(i for i in ids if isinstance(i, str))) if isinstance(
        ids, list) else ()


def load_pins(transcript: Transcript, state_dir: Path | str | None = None) -> PinSet:
    """The remembered pins of ``transcript`` (none when nothing was pinned)."""
    path, sid = _identity(transcript)
    return PinSet(path, sid, _read(pins_path(transcript, state_dir), path, sid))


def _update(transcript: Transcript, state_dir: Path | str | None,
            change: Callable[[tuple[str, ...]], tuple[str, ...]]) -> PinSet:
    path, sid = _identity(transcript)
    sidecar = pins_path(transcript, state_dir)
    try:
        sidecar.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PersistError(sidecar.parent, f"cannot create the pins folder: {exc}") from exc
    with hold_lock(sidecar):
        ids = tuple(dict.fromkeys(change(_read(sidecar, path, sid))))
        atomic_write_text(sidecar, json.dumps({"version": _VERSION, "path": str(path),
                                               "session_id": sid, "pins": list(ids)},
                                              indent=1) + "\n")
    return PinSet(path, sid, ids)


def unknown_pins(transcript: Transcript, entry_ids: Iterable[str]) -> tuple[str, ...]:
    """The ids that name no entry of ``transcript``."""
    return tuple(i for i in entry_ids if i not in transcript.index)


def _known(transcript: Transcript, entry_ids: Iterable[str]) -> tuple[str, ...]:
    ids = tuple(entry_ids)
    unknown = unknown_pins(transcript, ids)
    if unknown:
        raise PersistError(transcript.path, "cannot pin " + ", ".join(unknown) + ": no entry "
                           "with that id in this transcript")
    return ids


def add_pins(transcript: Transcript, entry_ids: Iterable[str],
             state_dir: Path | str | None = None) -> PinSet:
    """Pin ``entry_ids`` (added to those remembered); an unknown id raises, naming it."""
    ids = _known(transcript, entry_ids)
    return _update(transcript, state_dir, lambda old: old + ids)


def remove_pins(transcript: Transcript, entry_ids: Iterable[str],
                state_dir: Path | str | None = None) -> PinSet:
    """Unpin ``entry_ids`` (ids that were not pinned are ignored)."""
    gone = set(entry_ids)
    return _update(transcript, state_dir, lambda old: tuple(i for i in old if i not in gone))


def save_pins(transcript: Transcript, entry_ids: Iterable[str],
              state_dir: Path | str | None = None) -> PinSet:
    """Replace the remembered pins with ``entry_ids``."""
    ids = _known(transcript, entry_ids)
    return _update(transcript, state_dir, lambda _old: ids)
