#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# html-inspect.py: read a kvmbench HTML report (or Chromium's DOM dump of it) with Python's HTML
# parser and print one of its parts, one item a line, for tests/scripts/report-html.test:
#   first FILE     the first screen: "first-child TAG", then "verdict TEXT", "hostline TEXT", "figures TEXT"
#   bars FILE ID   the full category names of the bar chart(s) in <figure id=ID>
#   assets FILE    every reference to something outside the file (src/href/... attributes, CSS url(), @import)
#   samples FILE   "collapsed N" and "shown N": sample plots inside a closed <details> and elsewhere
#   trace FILE     the text of <section id="trace">
#   prose FILE     the text outside the collapsed raw-details sections (<details class="raw">)
import re
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
REF_ATTRS = {"src", "href", "xlink:href", "srcset", "action", "formaction", "poster", "data", "background",
             "manifest", "ping", "cite", "longdesc", "codebase"}
CSS_REF = re.compile(r"url\s*\(|@import", re.I)


class Report(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []          # (tag, attrs)
        self.first_child = None
        self.texts = {}          # element id -> text
        self.bars = {}           # figure id -> [category]
        self.assets = []
        self.collapsed = self.shown = 0
        self.in_style = False
        self.prose = []

    def ids(self):
        return [a.get("id") for _, a in self.stack if a.get("id")]

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k, v in attrs:
            if k in REF_ATTRS and v is not None and not v.startswith("#"):
                self.assets.append("%s %s=%s" % (tag, k, v))
            if k == "style" and v and CSS_REF.search(v):
                self.assets.append("%s style=%s" % (tag, v))
        if tag in ("script", "iframe", "object", "embed", "link", "img", "frame", "base"):
            self.assets.append("<%s>" % tag)
        if tag == "body":
            self.first_child = ""
        elif self.first_child == "" and self.stack and self.stack[-1][0] == "body":
            self.first_child = tag + ("#" + a["id"] if a.get("id") else "")
        if tag == "svg" and (a.get("aria-label") or "").endswith(" samples"):
            closed = any(t == "details" and "open" not in at for t, at in self.stack)
            if closed:
                self.collapsed += 1
            else:
                self.shown += 1
        if tag == "style":
            self.in_style = True
        if tag not in VOID:
            self.stack.append((tag, a))

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        if self.in_style and CSS_REF.search(data):
            self.assets.append("<style> " + CSS_REF.search(data).group(0))
        for i in self.ids():
            self.texts[i] = self.texts.get(i, "") + data
        if not self.in_style and not any(t == "details" and "raw" in (a.get("class") or "").split()
                                         for t, a in self.stack):
            self.prose.append(data)
        # A bar chart's category: the <title> of a <g> (the label group) inside a figure.
        if len(self.stack) >= 2 and self.stack[-1][0] == "title" and self.stack[-2][0] == "g":
            fig = [a.get("id") for t, a in self.stack if t == "figure" and a.get("id")]
            if fig:
                self.bars.setdefault(fig[-1], []).append(data)


def main():
    what, path = sys.argv[1], sys.argv[2]
    r = Report()
    with open(path, encoding="utf-8") as f:
        r.feed(f.read())
    r.close()
    norm = lambda s: " ".join(s.split())
    if what == "first":
        print("first-child", r.first_child)
        for i in ("verdict", "hostline", "figures"):
            print(i, norm(r.texts.get(i, "")))
    elif what == "bars":
        for c in r.bars.get(sys.argv[3], []):
            print(c)
    elif what == "assets":
        for a in r.assets:
            print(a)
    elif what == "samples":
        print("collapsed", r.collapsed)
        print("shown", r.shown)
    elif what == "prose":
        print("".join(r.prose))
    elif what == "trace":
        print(norm(r.texts.get("trace", "")))
    else:
        sys.exit("html-inspect.py: unknown part '%s'" % what)


main()
