"""JSON Schemas: the shipped ones, compiled once, with a fast yes/no check and positioned findings."""
