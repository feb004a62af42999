"""Search across every session: the panel, its hit list and the controller behind them."""
