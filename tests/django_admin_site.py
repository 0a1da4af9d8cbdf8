"""A minimal Django project with its admin, for the suggested-targets test on a real admin application.

Run as a script: ``python django_admin_site.py FOLDER PASSWORD``. Settings are
in code, the database is sqlite in FOLDER; it migrates, creates the superuser
``admin``, serves the admin (and its static files) on 127.0.0.1 on a free
port, prints that port on its first line, and serves until it is stopped. It
ends itself after ``HARD_LIMIT_S`` whatever happens, so a test that dies
cannot leave it running.
"""

from __future__ import annotations

import os
import sys
import threading
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

HARD_LIMIT_S = 300


def main(folder: str, password: str) -> None:
    threading.Timer(HARD_LIMIT_S, lambda: os._exit(3)).start()
    import django
    from django.conf import settings

    settings.configure(
        DEBUG=True,
        SECRET_KEY="a key for a test server on 127.0.0.1 only",
        ALLOWED_HOSTS=["127.0.0.1"],
        ROOT_URLCONF=__name__,
        INSTALLED_APPS=["django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes",
                        "django.contrib.sessions", "django.contrib.messages", "django.contrib.staticfiles"],
        MIDDLEWARE=["django.contrib.sessions.middleware.SessionMiddleware",
                    "django.middleware.common.CommonMiddleware", "django.middleware.csrf.CsrfViewMiddleware",
                    "django.contrib.auth.middleware.AuthenticationMiddleware",
                    "django.contrib.messages.middleware.MessageMiddleware"],
        TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True,
                    "OPTIONS": {"context_processors": ["django.template.context_processors.request",
                                                       "django.contrib.auth.context_processors.auth",
                                                       "django.contrib.messages.context_processors.messages"]}}],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(folder, "db.sqlite3")}},
        STATIC_URL="/static/",
        USE_TZ=True,
        DEFAULT_AUTO_FIELD="django.db.models.AutoField",
    )
    django.setup()
    from django.contrib import admin
    from django.contrib.auth.models import User
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application
    from django.urls import path

    module = sys.modules[__name__]
    module.urlpatterns = [path("admin/", admin.site.urls)]  # type: ignore[attr-defined]
    call_command("migrate", verbosity=0, interactive=False)
    User.objects.create_superuser("admin", "admin@example.test", password)

    class Server(ThreadingMixIn, WSGIServer):
        daemon_threads = True

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: object) -> None:
            return

    httpd = make_server("127.0.0.1", 0, StaticFilesHandler(get_wsgi_application()), server_class=Server,
                        handler_class=Quiet)
    print(httpd.server_port, flush=True)
    httpd.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
