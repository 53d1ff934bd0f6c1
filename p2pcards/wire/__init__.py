"""The wire layer, sans-IO: identities, frames, signed messages, the table log (a hash chain per
seat),
sealed private payloads and transcript files. Bytes and objects in; bytes, objects and
exceptions out. No sockets and no trio here (see protocol/wire.md and protocol/transcript.md).

Modules: :mod:`.identity` (keys, fingerprints, table words), :mod:`.framing` (frames and the
canonical encoding), :mod:`.schema` (field checks), :mod:`.messages` (the catalogue, signatures,
handshake), :mod:`.log` (the table log and blame), :mod:`.sealed` (private payloads),
:mod:`.transcript` (transcript files). The names below are the ones a session needs most.
"""

from .errors import ProtocolError, SchemaError, VersionMismatch
from .framing import DEFAULT_LIMITS, FrameDecoder, FrameError, Limits, decode, encode, encode_frame
from .identity import (
    Identity,
    IdentityError,
    PublicIdentity,
    TableWords,
    data_dir,
    fingerprint,
    load_or_create_identity,
    open_table_words,
    table_auth_words,
    words_commitment,
)
from .log import Blame, Log, Mismatch, Rejected, encode_header
from .messages import (
    Auth,
    Bye,
    Entry,
    Fetch,
    Fetched,
    Hello,
    common_games,
    genesis_hash,
    handshake_proof,
    make_hello,
    new_table_id,
    parse_message,
    seat_genesis,
    sign_entry,
    version_mismatch,
)
from .sealed import SealError, open_body, seal_body
from .transcript import (
    TornTranscript,
    Transcript,
    TranscriptEnd,
    TranscriptError,
    TranscriptHeader,
    TranscriptWriter,
    read_transcript,
)

__all__ = [
    "Auth",
    "Blame",
    "Bye",
    "DEFAULT_LIMITS",
    "Entry",
    "Fetch",
    "Fetched",
    "FrameDecoder",
    "FrameError",
    "Hello",
    "Identity",
    "IdentityError",
    "Limits",
    "Log",
    "Mismatch",
    "ProtocolError",
    "PublicIdentity",
    "Rejected",
    "SchemaError",
    "SealError",
    "TableWords",
    "TornTranscript",
    "Transcript",
    "TranscriptEnd",
    "TranscriptError",
    "TranscriptHeader",
    "TranscriptWriter",
    "VersionMismatch",
    "common_games",
    "data_dir",
    "decode",
    "encode",
    "encode_frame",
    "encode_header",
    "fingerprint",
    "genesis_hash",
    "handshake_proof",
    "load_or_create_identity",
    "make_hello",
    "new_table_id",
    "open_body",
    "open_table_words",
    "parse_message",
    "read_transcript",
    "seal_body",
    "seat_genesis",
    "sign_entry",
    "table_auth_words",
    "version_mismatch",
    "words_commitment",
]
