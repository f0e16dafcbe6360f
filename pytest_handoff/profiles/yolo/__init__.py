"""YOLO (github.com/slavpetroff/yolo): typed messages and JSONL artifacts under ``.yolo-planning/``."""
