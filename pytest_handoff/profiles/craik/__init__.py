"""Craik (github.com/Eidetic-Labs/Craik): handoff records and their quality scores, as JSON exports or in Craik's SQLite store."""
