"""A session's life: the chain of files, branches, drift, comparisons and forensics of recorded compactions."""
