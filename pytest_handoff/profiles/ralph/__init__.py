"""Ralph (feliperyba/ralph-orchestra): single-agent handoffs through phrases in agent logs."""
