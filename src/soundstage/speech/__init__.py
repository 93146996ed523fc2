"""Speech features: text-to-speech and the engines behind them."""
