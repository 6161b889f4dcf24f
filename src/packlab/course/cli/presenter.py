"""The presenter's command: demo (the workshop notebook, with its speaker notes)."""

from __future__ import annotations

import argparse


def cmd_demo(args: argparse.Namespace) -> int:
    """Serve the presenter's notebook in JupyterLab with projector-sized fonts."""
    from packlab.course import workshop

    return workshop.run(fresh=args.fresh, code_px=args.font_size)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """demo."""
    demo = sub.add_parser("demo", help="serve the presenter's notebook, big fonts")
    demo.add_argument("--fresh", action="store_true",
                      help="replace your copy of the presenter's notebook with the course's")
    demo.add_argument("--font-size", type=int, default=22, help="code font size in pixels")
    demo.set_defaults(run=cmd_demo)
