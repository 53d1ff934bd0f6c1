"""trio drivers: zeroconf discovery, the TCP mesh, persistence and reconnection."""
