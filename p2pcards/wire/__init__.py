"""The wire layer, sans-IO: identities, frames, signed messages, the hash-chained table log,
sealed private payloads and transcript files. Bytes and objects in; bytes, objects and
exceptions out. No sockets and no trio here (see protocol/wire.md and protocol/transcript.md)."""
