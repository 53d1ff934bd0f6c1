"""Who a peer is: an Ed25519 signing key and an X25519 encryption key, kept in one file.

The file lives in the user's data folder (:func:`data_dir`): the ``home`` argument, else
``$P2PCARDS_HOME``, else ``$XDG_DATA_HOME/p2pcards``, else ``~/.local/share/p2pcards``. It is
made on first use with mode 0600 (the folder 0700) and refused, like ssh does, when it is readable
or writable by anyone else. The X25519 key is a separate random key rather than one converted
from the Ed25519 key; the hello message (signed with the Ed25519 key) binds the two.

People compare two things: a peer's :func:`fingerprint` in the lobby, and a table's
:func:`table_auth_words`, a few words derived from the table header (every seat's keys) and a
nonce of every seat, each committed to (:func:`words_commitment`) before any was revealed. If
everyone at the table reads out the same words, nobody sits between them.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat
from nacl.bindings import crypto_sign_open
from nacl.exceptions import BadSignatureError

from .. import cores
from . import framing
from .files import fsync_dir
from .wordlist import WORDS

SIGNATURE_SIZE = 64

__all__ = [
    "IDENTITY_FILE",
    "Identity",
    "IdentityError",
    "PublicIdentity",
    "TableWords",
    "data_dir",
    "fingerprint",
    "load_identity",
    "load_or_create_identity",
    "new_words_nonce",
    "open_table_words",
    "table_auth_words",
    "words_commitment",
]

IDENTITY_FILE = "identity.key"
_FORMAT = "p2pcards-identity"
_FORMAT_VERSION = 1
KEY_SIZE = 32


class IdentityError(RuntimeError):
    """The identity file cannot be used; the message says why and what to do."""


def _raw_public(key) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def _raw_private(key) -> bytes:
    return key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())


def fingerprint(ed25519_public: bytes) -> str:
    """A short, readable name for a signing key, e.g. ``'ab12-cd34-ef56'`` (48 bits: enough to
    tell players apart in a lobby, not to authenticate them; use the table words for that)."""
    digest = hashlib.sha256(b"p2pcards fingerprint\x00" + ed25519_public).hexdigest()
    return f"{digest[0:4]}-{digest[4:8]}-{digest[8:12]}"


def verify_many(items: Sequence[tuple[PublicIdentity, bytes, bytes]]) -> list[bool]:
    """``key.verify(signature, data)`` for each ``(key, signature, data)``, over this machine's
    cores (libsodium releases the GIL): for reading a whole transcript."""

    def part(chunk: Sequence[tuple[PublicIdentity, bytes, bytes]]) -> list[bool]:
        return [key.verify(sig, data) for key, sig, data in chunk]

    if cores.WORKERS < 2 or len(items) < 64:
        return part(items)
    (_, first), *rest = cores.shares(len(items), cores.WORKERS)
    futures = [cores.pool().submit(part, items[a:b]) for a, b in rest]
    out = part(items[:first])
    for future in futures:
        out += future.result()
    return out


@dataclass(frozen=True, slots=True)
class PublicIdentity:
    """The public half of an identity: what the roster holds for each seat."""

    ed25519: bytes
    x25519: bytes

    def __post_init__(self) -> None:
        for name in ("ed25519", "x25519"):
            value = getattr(self, name)
            if not isinstance(value, bytes) or len(value) != KEY_SIZE:
                raise ValueError(f"{name} public key must be {KEY_SIZE} bytes")

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.ed25519)

    def verify(self, signature: bytes, data: bytes) -> bool:
        """True if ``signature`` is this key's Ed25519 signature of ``data``. Checked by
        libsodium (twice as fast here as through ``cryptography``, and strict: a
        non-canonical signature or a small-order key is refused)."""
        if len(signature) != SIGNATURE_SIZE or len(self.ed25519) != 32:
            return False
        try:
            crypto_sign_open(signature + data, self.ed25519)
        except (BadSignatureError, ValueError, TypeError):
            return False
        return True

    def to_wire(self) -> dict[str, bytes]:
        return {"ed25519": self.ed25519, "x25519": self.x25519}


class Identity:
    """A private identity: signs with Ed25519, agrees keys with X25519."""

    def __init__(self, signing_key: Ed25519PrivateKey, exchange_key: X25519PrivateKey):
        self.signing_key = signing_key
        self.exchange_key = exchange_key
        self.public = PublicIdentity(_raw_public(signing_key.public_key()), _raw_public(exchange_key.public_key()))
        self._shared: dict[bytes, bytes] = {}  # peer X25519 key -> our shared secret

    def shared_secret(self, peer_x25519: bytes) -> bytes:
        """X25519 with a peer's key, computed once per peer (a table seals many messages to
        the same few seats). Raises ValueError for a key that gives no usable secret."""
        secret = self._shared.get(peer_x25519)
        if secret is None:
            secret = self.exchange_key.exchange(X25519PublicKey.from_public_bytes(peer_x25519))
            self._shared[peer_x25519] = secret
        return secret

    def __repr__(self) -> str:
        return f"<Identity {self.fingerprint}>"

    @classmethod
    def generate(cls) -> Identity:
        return cls(Ed25519PrivateKey.generate(), X25519PrivateKey.generate())

    @classmethod
    def from_private_bytes(cls, ed25519: bytes, x25519: bytes) -> Identity:
        return cls(
            Ed25519PrivateKey.from_private_bytes(ed25519),
            X25519PrivateKey.from_private_bytes(x25519),
        )

    @property
    def fingerprint(self) -> str:
        return self.public.fingerprint

    def sign(self, data: bytes) -> bytes:
        return self.signing_key.sign(data)

    def secret(self, label: bytes) -> bytes:
        """A 32-byte secret of this identity for ``label``'s purpose (HMAC-SHA-256 under its
        private signing key): the same every time, and nothing about the key or another
        label's secret can be learnt from it (the sealed responses of a free-order round,
        protocol/table.md section 9)."""
        return hmac.new(_raw_private(self.signing_key), label, hashlib.sha256).digest()

    def to_file_bytes(self) -> bytes:
        return framing.encode(
            {
                "format": _FORMAT,
                "version": _FORMAT_VERSION,
                "ed25519": _raw_private(self.signing_key),
                "x25519": _raw_private(self.exchange_key),
            }
        )

    @classmethod
    def from_file_bytes(cls, data: bytes, source: str = "identity file") -> Identity:
        try:
            obj = framing.decode(data)
        except framing.FrameError as exc:
            raise IdentityError(f"{source} is damaged: {exc.reason}") from None
        if not isinstance(obj, dict) or obj.get("format") != _FORMAT:
            raise IdentityError(f"{source} is not a p2pcards identity file")
        if obj.get("version") != _FORMAT_VERSION:
            raise IdentityError(f"{source} has unsupported version {obj.get('version')!r}")
        ed, x = obj.get("ed25519"), obj.get("x25519")
        if not (isinstance(ed, bytes) and len(ed) == KEY_SIZE and isinstance(x, bytes) and len(x) == KEY_SIZE):
            raise IdentityError(f"{source} is damaged: bad key lengths")
        return cls.from_private_bytes(ed, x)


def data_dir(home: str | os.PathLike[str] | None = None) -> Path:
    """The folder for this user's identity, transcripts and saved games."""
    if home is not None:
        return Path(home)
    if os.environ.get("P2PCARDS_HOME"):
        return Path(os.environ["P2PCARDS_HOME"])
    xdg = os.environ.get("XDG_DATA_HOME", "")
    if xdg and os.path.isabs(xdg):  # the XDG spec says to ignore relative paths
        return Path(xdg) / "p2pcards"
    return Path.home() / ".local" / "share" / "p2pcards"


def _check_private(path: Path) -> None:
    st = path.stat()
    if not stat.S_ISREG(st.st_mode):
        raise IdentityError(f"{path} is not a regular file")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise IdentityError(f"{path} belongs to another user (uid {st.st_uid}); refusing to use it")
    if st.st_mode & 0o077:
        raise IdentityError(
            f"{path} is accessible by other users (mode {stat.S_IMODE(st.st_mode):04o}); "
            f"your private key may have leaked. Run: chmod 600 {path}"
        )


def load_identity(path: str | os.PathLike[str]) -> Identity:
    """Read an identity file, refusing one that others can read or write."""
    path = Path(path)
    _check_private(path)
    return Identity.from_file_bytes(path.read_bytes(), str(path))


def load_or_create_identity(home: str | os.PathLike[str] | None = None) -> Identity:
    """This user's identity, made and saved on first use (see the module doc for where)."""
    folder = data_dir(home)
    path = folder / IDENTITY_FILE
    if path.exists():
        return load_identity(path)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    identity = Identity.generate()
    tmp = folder / f".{IDENTITY_FILE}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(identity.to_file_bytes())
            handle.flush()
            os.fsync(handle.fileno())
        try:
            # link, unlike rename, fails if another process created the file meanwhile.
            os.link(tmp, path)
        except FileExistsError:
            return load_identity(path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(folder)
    return identity


#: Size of the random nonce each seat commits to for the table words.
WORDS_NONCE_SIZE = 32
_WORDS_COMMIT_DOMAIN = b"p2pcards table words commit\x00"
_WORDS_DOMAIN = b"p2pcards table words\x00"


def new_words_nonce() -> bytes:
    """A fresh random nonce for the table words (one per seat and table)."""
    return secrets.token_bytes(WORDS_NONCE_SIZE)


def words_commitment(nonce: bytes) -> bytes:
    """The commitment a seat sends before anybody's nonce is known:
    ``H("p2pcards table words commit\\x00" || nonce)``."""
    return hashlib.sha256(_WORDS_COMMIT_DOMAIN + nonce).digest()


def table_auth_words(header: Mapping[str, Any], nonces: Sequence[bytes], count: int = 5) -> list[str]:
    """Words that every seat reads aloud to check that all see the same table and keys.

    SHA-256 over a domain prefix and the canonical encoding of the table header (its wire form:
    table id, game, every seat's keys and address ...) and every seat's words nonce in seat
    order; each of the first ``count`` bytes picks a word (5 words = 40 bits). The nonces were
    committed to before any of them was revealed (:func:`open_table_words`), so a person in the
    middle cannot choose keys that give both sides the same words: each try succeeds with
    probability 2^-40 with 5 words, however much it computes beforehand."""
    if not 1 <= count <= 32:
        raise ValueError("count must be in 1..32")
    data = framing.encode({"header": dict(header), "nonces": list(nonces)})
    digest = hashlib.sha256(_WORDS_DOMAIN + data).digest()
    return [WORDS[b] for b in digest[:count]]


@dataclass(frozen=True)
class TableWords:
    """A table's words as one seat sees them, or why it cannot show any: ``seat`` is the seat
    whose nonce is missing or does not open its commitment (``None`` with ``words``)."""

    words: tuple[str, ...] = ()
    problem: str = ""
    seat: int | None = None


def open_table_words(
    header: Mapping[str, Any], commits: Sequence[bytes], nonces: Sequence[bytes | None], count: int = 5
) -> TableWords:
    """Check every seat's nonce against its commitment and derive the words. The first seat
    (in seat order) whose nonce is missing (``None``) or does not open its commitment is
    named, and there are no words."""
    if len(commits) != len(nonces):
        raise ValueError("one commitment and one nonce per seat")
    for seat, (commit, nonce) in enumerate(zip(commits, nonces)):
        if nonce is None:
            return TableWords(problem=f"seat {seat} did not reveal its words nonce", seat=seat)
        if len(nonce) != WORDS_NONCE_SIZE or words_commitment(nonce) != commit:
            return TableWords(problem=f"seat {seat}'s words nonce does not open its commitment", seat=seat)
    opened = [nonce for nonce in nonces if nonce is not None]  # all of them, checked above
    return TableWords(tuple(table_auth_words(header, opened, count)))
