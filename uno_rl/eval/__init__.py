"""Evaluation: duplicate-deal tournaments between batched agents, statistics, ratings."""
