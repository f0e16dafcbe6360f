"""The one pipeline: discovery -> read -> validate -> rules -> mask -> findings, for every entry point."""
