"""hybridio's study tools: run hio-bench beside a co-runner and report."""
