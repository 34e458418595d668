"""The entry point gunicorn serves (``app:app``, gunicorn.conf.py): the service's app, built over
the environment's settings (service/settings.py; the service itself is the ``service`` package)."""
from service import create_app

app = create_app()
