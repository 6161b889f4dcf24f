"""nbgrader's Assignments tab for the hub's learners, loaded when it is first used.

The tab (fetch, submit, feedback) and the notebook's Validate button talk to two of nbgrader's
server extensions. Importing them imports all of nbgrader (nbconvert, setuptools'
pkg_resources, its four extensions): about half a CPU-second that every learner's server would
pay at its start, when a class logs in at once, for a tab a learner opens later, if at all.

This server extension takes their place in a learner's server on the hub (`packlab lab`,
packlab.course.cli.learner): at the start it claims the addresses they serve and imports
nothing of nbgrader; the first request to one of them loads nbgrader's two extensions, as they
are, and from then on nbgrader's own handlers answer, through the routes they add themselves.
"""

from __future__ import annotations

from importlib import import_module

from jupyter_server.utils import url_path_join
from tornado.routing import PathMatches, Router

# nbgrader's extensions behind the tab and the Validate button, in the order Jupyter loads them.
NBGRADER = ("nbgrader.server_extensions.assignment_list",
            "nbgrader.server_extensions.validate_assignment")
# Every address they serve, below the server's base URL: the assignments and their actions
# (fetch, submit, fetch_feedback, validate), the courses, nbgrader's version.
ADDRESSES = r"(?:assignments(?:/.*)?|courses|nbgrader_version)"


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": __name__}]


def _load_jupyter_server_extension(server_app) -> None:
    web_app = server_app.web_app
    claimed = PathMatches(url_path_join(web_app.settings["base_url"], ADDRESSES))
    web_app.add_handlers(".*$", [(claimed, OnFirstUse(server_app))])
    server_app.log.info("nbgrader's Assignments tab loads at its first use")


class OnFirstUse(Router):
    """The route in front of nbgrader's addresses: its first request loads nbgrader's
    extensions, which add their routes after this one; it answers no request itself."""

    SUPPORTED_METHODS = ()  # none: Jupyter's server checks each route's methods for a login

    def __init__(self, server_app) -> None:
        self.server_app = server_app
        self.loaded = False

    def find_handler(self, request, **_):
        if self.loaded:
            return None  # the next routes, nbgrader's own, answer
        self.loaded = True
        for name in NBGRADER:
            import_module(name).load_jupyter_server_extension(self.server_app)
        return self.server_app.web_app.find_handler(request)  # this request too, now
