"""The table protocol, below the network: what the seats agreed on in the lobby (the header,
its seats and timeouts), and the rules every seat applies to the signed log of a game
(:class:`~p2pcards.table.protocol.TableProtocol`: causal order, catch-up, head echoes,
evidence, blame). Nothing here touches sockets, trio or a clock: the driver in
:mod:`p2pcards.net.peer` feeds it messages and the time, and carries out what it returns,
as h11's ``Connection`` does for HTTP."""
