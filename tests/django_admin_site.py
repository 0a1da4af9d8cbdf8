"""A minimal Django project with its admin, for the tests (and the benchmarks) on a real admin application.

Run as a script: ``python django_admin_site.py FOLDER PASSWORD [HARD_LIMIT_S]``.
Settings are in code, the database is sqlite in FOLDER; it migrates, creates
the superuser ``admin``, serves the admin (and its static files) on 127.0.0.1
on a free port, prints that port on its first line, and serves until it is
stopped. It ends itself after ``HARD_LIMIT_S`` (default 300) whatever happens,
so a test that dies cannot leave it running.

Besides Django's own apps it has one small app, ``library``, whose model
``Document(title, file)`` (a ``FileField``, files in FOLDER/media) is in the
admin: the benchmark's real-application flow adds one with an upload. Its
table is created with the schema editor (the app has no migrations). The
password hasher is MD5: PBKDF2's deliberate cost (about 0.3 s a log-in here)
would otherwise dominate every flow that signs in.
"""

from __future__ import annotations

import os
import sys
import threading
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.apps import AppConfig

HARD_LIMIT_S = 300


class LibraryConfig(AppConfig):
    """The ``library`` app: this module (imported by name, from its folder on sys.path), no migrations."""

    name = "django_admin_site"
    label = "library"
    verbose_name = "Library"
    default_auto_field = "django.db.models.AutoField"


def main(folder: str, password: str, hard_limit_s: float = HARD_LIMIT_S) -> None:
    threading.Timer(hard_limit_s, lambda: os._exit(3)).start()
    import django
    from django.conf import settings

    settings.configure(
        DEBUG=True,
        SECRET_KEY="a key for a test server on 127.0.0.1 only",
        ALLOWED_HOSTS=["127.0.0.1"],
        ROOT_URLCONF=__name__,
        INSTALLED_APPS=["django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes",
                        "django.contrib.sessions", "django.contrib.messages", "django.contrib.staticfiles",
                        "django_admin_site.LibraryConfig"],
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
        MEDIA_ROOT=os.path.join(folder, "media"),
        MEDIA_URL="/media/",
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
        USE_TZ=True,
        DEFAULT_AUTO_FIELD="django.db.models.AutoField",
    )
    django.setup()
    from django.contrib import admin
    from django.contrib.auth.models import User
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application
    from django.db import connection, models
    from django.urls import path

    class Document(models.Model):
        title = models.CharField(max_length=200)
        file = models.FileField(upload_to="documents/")

        class Meta:
            app_label = "library"

        def __str__(self) -> str:
            return self.title

    admin.site.register(Document)
    module = sys.modules[__name__]
    module.urlpatterns = [path("admin/", admin.site.urls)]  # type: ignore[attr-defined]
    call_command("migrate", verbosity=0, interactive=False)
    with connection.schema_editor() as editor:  # the app has no migrations (nor a models module to sync)
        editor.create_model(Document)
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
    main(sys.argv[1], sys.argv[2], *(float(v) for v in sys.argv[3:4]))
