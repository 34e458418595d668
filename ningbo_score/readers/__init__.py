"""The readers of the library: every request body is read here, once, and nowhere else.

``fields`` (the house's marshmallow fields: tiles, strict booleans and integers, capped lists and
strings, the language's messages) and ``strict`` (:class:`StrictSchema`, marshmallow's load
without its generic machinery) are the parts; ``request_schemas`` (``/v1/score``, the waits,
the analysis, the batch, the table's helpers), ``replay_requests`` (a hand's log, and the
referee's prefix) and ``session_requests`` (a session) are the readers, each turning a JSON
body into the typed input of its library function or the 400 that says what is wrong with it.

Nothing here imports the rule book's checks (``hand.check``), the engine or the routes: a reader
checks shape and types, and the library's own modules check the rules (the 422s).  This package
imports nothing at its top, so no import circle can form through it."""
