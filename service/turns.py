"""What the web layer asks of the server it runs under: the turns of heavy work, the deadlines of
a body, and a moment's yield in a long loop.  The app (service/bodies.py, service/routes.py)
calls only this module; it imports neither gevent nor gunicorn.

:data:`current` is a :class:`Turns` that does nothing (a test client, a plain WSGI server, the
CLI): no wait, no deadline, no yield.  The gevent worker (service/serving.py) installs its own
(:func:`install`, in the worker process only), which shares the worker's CPU among its
connections: heavy requests take turns item by item, one client after another, in a bounded
queue (service/heavy.py), bodies are read within deadlines, and long loops yield.

The problems the server raises through it (a body past its deadline, a client gone, a full queue)
are here, so that the app names them without importing the worker.
"""
from __future__ import annotations

import typing

from werkzeug.exceptions import BadRequest

from ningbo_score import ScoreError
from ningbo_score.readers import fields
from ningbo_score.errors import Problem
from service.settings import current as settings

Environ = typing.MutableMapping[str, typing.Any]


def _problem(code: str, en: str, zh: str | None = None) -> Problem:
    return Problem(code, "", en, zh or en)


class BodyTimeout(ScoreError):
    """The body did not come in within ``BODY_TIMEOUT`` (408)."""

    def __init__(self) -> None:
        super().__init__([_problem(
            "request_timeout", f"The body did not arrive within {settings().body_timeout:g} s.",
            f"请求体未在 {settings().body_timeout:g} 秒内送达。")])


class ClientGone(ScoreError):
    """The client of a request closed its connection before the answer was ready (status 499,
    nginx's 'client closed request'; nobody reads it, the access log and metrics do)."""

    def __init__(self) -> None:
        super().__init__([_problem("client_closed", "The client closed the connection before the answer.",
                                   "客户端在收到回答前关闭了连接。")])


class Overloaded(ScoreError):
    """The worker sheds a heavy request (503 ``overloaded`` with ``Retry-After``): its queue of
    heavy work is full, this client already has its share of it waiting, the request waited
    longer than the queue's time limit, or the worker is stopping."""

    def __init__(self, why_en: str, why_zh: str, retry_after_s: int) -> None:
        super().__init__([_problem(
            "overloaded", f"The server is busy: {why_en} Try again in {retry_after_s} s.",
            f"服务器繁忙：{why_zh}请在 {retry_after_s} 秒后重试。")])
        self.headers = {"Retry-After": str(retry_after_s)}


def body_cut_short() -> ScoreError:
    """The problem for a body that ended (the client closed) before its length or last chunk."""
    return ScoreError([_problem("invalid_request", "The body ended before its announced length or last chunk.",
                                "请求体在声明的长度或最后一个分块之前就结束了。")])


class _NoContext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _nothing() -> None:
    return None


class Turns:
    """The server's side of a request, as the app sees it; this base does nothing."""

    #: what reading a body can raise besides a problem (a socket that timed out or was reset,
    #: werkzeug's ClientDisconnected): refused by :meth:`body_problem`
    read_errors: tuple[type[BaseException], ...] = (OSError, BadRequest)

    def body_deadline(self) -> typing.ContextManager[None]:
        """A context in which reading the body must end within ``BODY_TIMEOUT`` (else
        :class:`BodyTimeout` where the read waits)."""
        return _NoContext()

    def reading(self, environ: Environ) -> typing.ContextManager[None]:
        """A context around reading the body: the request holds no turn of the worker while it
        waits for its client's bytes."""
        return _NoContext()

    def body_problem(self, err: BaseException) -> ScoreError:
        """The problem for a body whose reading raised ``err`` (one of :attr:`read_errors`)."""
        if isinstance(err, TimeoutError):
            io_timeout = settings().io_timeout
            return ScoreError([_problem("request_timeout", f"The body stopped coming for {io_timeout:g} s.",
                                        f"请求体中断了 {io_timeout:g} 秒。")])
        return body_cut_short()

    def send_continue(self, environ: Environ) -> None:
        """``100 Continue`` to a client that asked for it, when the app is about to read a body it
        takes."""
        return None

    def take(self, environ: Environ, body_bytes: int, heavy: bool = False) -> None:
        """Before the work of a request whose body is read: a heavy one (``heavy``, or a large
        body) waits for its turn, or is shed (:class:`Overloaded`)."""
        return None

    def release(self, environ: Environ) -> None:
        """The request's work is done (Flask's teardown): its turn goes to the next client."""
        return None

    def between(self, environ: Environ) -> typing.Callable[[], None]:
        """The function heavy work calls before each of its items (a hand, a wait, a log): the
        other clients' work runs meanwhile; :class:`ClientGone` when the client has left."""
        return _nothing

    def pause(self) -> None:
        """A moment's yield inside a long loop of CPU work (reading a large body)."""
        return None


#: the server's turns in this process (the gevent worker installs its own)
current: Turns = Turns()


def install(turns: Turns) -> None:
    """Use ``turns`` in this process, also between the items a batch's reader loads
    (ningbo_score.readers.fields' pause hook)."""
    global current
    current = turns
    fields.set_pause(turns.pause)


def get() -> Turns:
    return current
