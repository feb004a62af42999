"""The pruning tab: what trimming old tool results saves and how far it moves the trigger."""
