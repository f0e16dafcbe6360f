"""Reading files into documents that know where every value stands: files, JSON, positions, pointers."""
