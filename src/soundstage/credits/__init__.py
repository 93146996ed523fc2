"""Credits: the spec's rate table, balances, a double-entry ledger, reserve/capture/release."""
