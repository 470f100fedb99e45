//! Accounts, API keys, plans, quotas, rate limits, dynamic links, scans and analytics: the service rules, with storage and the clock behind traits.
