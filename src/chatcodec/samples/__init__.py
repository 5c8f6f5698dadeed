"""Sample transcripts shipped with chatcodec (see README.md here)."""
