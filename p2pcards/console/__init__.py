"""The terminal console: a full-screen prompt-toolkit program for the lobby and the table.

* :mod:`.app` -- the application wiring (trio as a guest on prompt-toolkit's asyncio loop);
* :mod:`.viewmodel` -- what the screens show, as plain data built from a ``TableSession``;
* :mod:`.render` -- view models to styled text: suit symbols, colours, ASCII fallback;
* :mod:`.controller` -- what Enter does: console commands, moves, clear refusals;
* :mod:`.completion` -- Tab offers only legal moves and console commands;
* :mod:`.help` -- the game's rules summary and commands, and the console's own;
* :mod:`.demo` -- ``p2pcards demo``: a table with bots in the other seats;
* :mod:`.lobby` -- ``LobbyBackend``: what the LAN lobby screen needs from the network layer;
* :mod:`.lan` -- ``LanLobby``, that backend over :mod:`p2pcards.net`;
* :mod:`.lobbyview`, :mod:`.lobbyscreen` -- the lobby's view models and its screen;
* :mod:`.seat` -- ``p2pcards host``/``join`` played in person: one networked seat;
* :mod:`.replay` -- ``p2pcards replay``: a transcript's steps (:mod:`p2pcards.replay`) on screen.

The console talks only to :class:`p2pcards.session.TableSession` and the ``LobbyBackend``.
"""
