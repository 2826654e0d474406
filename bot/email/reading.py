"""Reading an inbound mail: pure functions over its bytes, no I/O.

Every function here takes whatever arrives (malformed MIME, unknown charsets, 8-bit
headers, any transfer encoding, hostile headers) and answers without raising: a mail the
bot cannot read is refused or ignored by its caller, never a crash.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.headerregistry import AddressHeader
from email.message import EmailMessage, Message
from html.parser import HTMLParser

from mailparser_reply import EmailReplyParser

MAX_BYTES = 256 * 1024
MAX_PARTS = 10
#: A command is short and sits near the top: the reply parser reads no more lines, and
#: no more of a line, than this. That bounds the time its regular expressions take on a
#: hostile body (a long line starting "On " costs them time growing with its square).
READ_CHARS = 8 * 1024
LINE_CHARS = 500
#: Attribution lines and signatures in these languages are recognised.
LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pl", "sv", "da", "cs", "ja", "ko", "zh"]
DISPLAY_NAME_CHARS = 64

_REPLY_PARSER = EmailReplyParser(languages=LANGUAGES)
_SUBJECT_PREFIX = re.compile(
    r"^\s*(?:(?:re|fwd?|aw|wg|sv|vs|tr|rv|antw)\s*(?:\[\d+\])?\s*:\s*)+", re.I
)
_ATTRIBUTION = re.compile(
    r"^(?:on|am|le|el|il|op)\b.*(?:wrote|schrieb|a écrit|escribió|ha scritto|schreef)\s*:$", re.I
)
#: Headers only machines' mail carries. Not X-Auto-Response-Suppress: it asks the
#: receiver not to auto-reply, and Exchange sets it on people's mail too (to distribution
#: lists, from some clients); its own auto-replies carry Auto-Submitted.
MACHINE_HEADERS = ("List-Id", "List-Unsubscribe", "X-Autoreply", "X-Autorespond")
_ANGLE_ADDRESS = re.compile(r"<([^<>]*)>")
_MESSAGE_ID = re.compile(r"<[^<>\s]{3,250}>")
QUOTED_IDS = 20  # a report's Message-IDs read, of its References too
_AUTOMATIC_SENDERS = {"mailer-daemon", "postmaster"}

#: A mail this small, of one text/plain part, is read by `plain` (the body's bound keeps
#: the reply parser's time on the event loop to milliseconds whatever the text).
PLAIN_BYTES = 8 * 1024
PLAIN_BODY = 1024
_HEADER = re.compile(r"([!-9;-~]+):[ \t]*(.*)")  # a header's first line, as the parser's
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_DOT_ATOM = rf"{_ATEXT}+(?:\.{_ATEXT}+)*"
_PLAIN_ADDRESS = rf"{_DOT_ATOM}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
#: From: one address, bare or in angle brackets after a name of plain words or quoted
_PLAIN_FROM = re.compile(
    rf"(?:(?P<words>[A-Za-z0-9'_-]+(?: +[A-Za-z0-9'_-]+)*)|\"(?P<quoted>[A-Za-z0-9 ,.'_-]*)\")?"
    rf" *<(?P<angle>{_PLAIN_ADDRESS})>|(?P<bare>{_PLAIN_ADDRESS})"
)
_PLAIN_MESSAGE_ID = re.compile(rf"<{_DOT_ATOM}@{_DOT_ATOM}>")
_PLAIN_TYPE = re.compile(
    r"text/plain((?: *; *[A-Za-z0-9-]+=(?:[A-Za-z0-9_.:+-]+|\"[A-Za-z0-9_.:+-]*\"))*)", re.I
)
_PARAMETER = re.compile(r"([A-Za-z0-9-]+)=\"?([A-Za-z0-9_.:+-]*)")
_PLAIN_ENCODINGS = {"7bit", "8bit", "binary"}


@dataclass(frozen=True, slots=True)
class Bounce:
    """A delivery status notification for mail the bot sent.

    `recipients` are the addresses (lowercased) the report gives up on: those that failed
    for good when any did (`hard`), else those delayed (`hard` False: a soft bounce, the
    server tries again). A report that mixes both names only the hard failures.
    `message_ids` are those it quotes of the mail that failed (anyone can write a report:
    these show which mail of the bot's, if any, it is about).
    """

    recipients: tuple[str, ...]
    hard: bool
    message_ids: tuple[str, ...] = ()


def parse(raw: bytes) -> EmailMessage:
    """The mail in `raw`, as well as it can be read; defects are recorded, never raised."""
    try:
        parsed = message_from_bytes(raw, policy=policy.default)
    except Exception:  # the parser records defects; this guards its rare internal errors
        parsed = EmailMessage(policy=policy.default)
    assert isinstance(parsed, EmailMessage)  # policy.default's message factory
    return parsed


@dataclass(frozen=True, slots=True)
class Plain:
    """What `plain` reads of a mail: what `automatic`, `address_of`, `name_of`,
    `command_text` and the Message-ID (header_safe) read of its parsed form."""

    automatic: bool
    sender: str | None
    name: str
    message_id: str
    command: str


def plain(raw: bytes) -> Plain | None:
    """Read a small mail of one text/plain part without the email package, or None.

    Most move mails are a line of text: the policy's parsing of their headers is most of
    the time their reading takes (a millisecond), and this reads the few headers the bot
    needs in a tenth of that, on the event loop. It reads only mails whose every header
    line is printable ASCII without encoded words, whose From, Message-ID and
    Content-Type have their plainest forms, and whose body is 7bit or 8bit, not an
    attachment: anything else is None, for `parse`. (A test holds that on what it reads
    it agrees with the parsed mail's reading.)
    """
    if len(raw) > PLAIN_BYTES:
        return None
    head, blank, body = raw.partition(b"\r\n\r\n")
    if not blank or len(body) > PLAIN_BODY or b"=?" in head or not head.isascii():
        return None
    fields: list[list[str]] = []  # [lower-cased name, unfolded value], in order
    for line in head.decode("ascii").split("\r\n"):
        if not line.replace("\t", " ").isprintable():
            return None  # a lone CR or LF, a control character
        if line[:1] in (" ", "\t") and fields:  # a folded header's next line
            fields[-1][1] += line
            continue
        found = _HEADER.fullmatch(line)
        if found is None:
            return None  # not a header: the parser would start the body here
        fields.append([found[1].lower(), found[2]])
    headers: dict[str, str] = {}
    for name, value in fields:
        headers.setdefault(name, value)  # of a header given twice, the first is read
    return _plain(headers, body)


def _plain(headers: dict[str, str], body: bytes) -> Plain | None:
    """`plain` of a mail's headers (lower-cased names, unfolded values) and body."""
    sender = headers.get("from")
    typed = headers.get("content-type")
    if "content-disposition" in headers:
        return None
    if headers.get("content-transfer-encoding", "7bit").strip().lower() not in _PLAIN_ENCODINGS:
        return None
    charset = None
    if typed is not None:
        matched = _PLAIN_TYPE.fullmatch(typed.strip())
        if matched is None:
            return None
        parameters = [(k.lower(), v) for k, v in _PARAMETER.findall(matched[1])]
        if len({k for k, _ in parameters}) < len(parameters):
            return None  # a parameter twice
        charset = dict(parameters).get("charset", "").lower() or None
    message_id = headers.get("message-id", "").strip()
    if message_id and not _PLAIN_MESSAGE_ID.fullmatch(message_id):
        return None
    address, display = None, ""
    if sender is not None:
        found = _PLAIN_FROM.fullmatch(sender.strip())
        if found is None:
            return None
        address = (found["angle"] or found["bare"]).lower()
        display = header_safe(found["words"] or found["quoted"] or "")
    return Plain(
        automatic=_machine(
            lambda name: headers.get(name.lower(), ""),
            lambda name: name.lower() in headers,
            address,
            "text/plain",
        ),
        sender=address,
        name=display,
        message_id=header_safe(message_id),
        command=_command(_text(body, charset), headers.get("subject", "")),
    )


def too_big(raw: bytes, message: Message) -> str | None:
    """One sentence refusing a mail over the size or part limits, or None when it fits."""
    if len(raw) > MAX_BYTES:
        return f"That mail is too big to read: Paperboard reads mails up to {MAX_BYTES // 1024} KB."
    if _part_count(message, stop_after=MAX_PARTS + 1) > MAX_PARTS:
        return f"That mail has too many parts: Paperboard reads mails of up to {MAX_PARTS} parts."
    return None


def automatic(message: Message) -> bool:
    """Whether the mail was sent by a machine and must never be answered (RFC 3834).

    Auto-replies (`Auto-Submitted` other than `no`, X-Autoreply), mailing lists and bulk
    mail, delivery and read reports, and mail from a
    null or daemon return path.
    """
    return _machine(
        lambda name: _header(message, name),
        lambda name: name in message,
        address_of(message),
        _content_type(message),
    )


def _machine(
    header: Callable[[str], str],
    has: Callable[[str], bool],
    sender: str | None,
    content_type: str,
) -> bool:
    """`automatic`'s rules over a mail's headers (`header`: a decoded value, "" when
    absent), its From address and its content type."""
    auto_submitted = header("Auto-Submitted").split(";")[0].strip().lower()
    if auto_submitted and auto_submitted != "no":
        return True
    if header("Precedence").strip().lower() in {"bulk", "junk", "list"}:
        return True
    if any(has(name) for name in MACHINE_HEADERS):
        return True
    if has("Return-Path") and machine_path(header("Return-Path")):
        return True
    if sender is not None and _automatic_sender(sender):
        return True
    return content_type == "multipart/report"


def machine_path(return_path: str) -> bool:
    """Whether a return path (the SMTP envelope's reverse path, or the Return-Path header
    that records it) is a machine's: the null one, `<>` (RFC 5321 4.5.5), or a daemon's."""
    path = return_path.strip().strip("<>").strip()
    return not path or _automatic_sender(path)


def bounce(message: Message) -> Bounce | None:
    """The failures a delivery status notification (RFC 3464) reports, or None.

    None for any other mail, and for a report of successful delivery.
    """
    if _content_type(message) != "multipart/report":
        return None
    if _param(message, "report-type").lower() != "delivery-status":
        return None
    hard: list[str] = []
    soft: list[str] = []
    for fields in _recipient_fields(message):
        address = _recipient(fields)
        if address is None:
            continue
        action = _header(fields, "Action").strip().lower()
        status = _header(fields, "Status").strip()
        if action == "failed" or status.startswith("5"):
            hard.append(address)
        elif action == "delayed" or status.startswith("4"):
            soft.append(address)
    if not hard and not soft:
        return None
    return Bounce(tuple(dict.fromkeys(hard or soft)), hard=bool(hard), message_ids=_quoted(message))


def command_text(message: EmailMessage) -> str:
    """The player's command: the first line of the newest reply, whitespace collapsed.

    Quoted text, attribution lines ("On ... wrote:") and signatures are left out; the text
    is the mail's text/plain part, or the text of its HTML. When that holds nothing, the
    subject stands in (without its Re:/Fwd: prefixes). Case is kept; "" when nothing is left.
    """
    return _command(_body_text(message), _header(message, "Subject"))


def _command(body: str, subject: str) -> str:
    """`command_text` of a mail whose text is `body`."""
    for line in _newest_reply(body).splitlines():
        text = " ".join(line.split())
        if text and not text.startswith(">") and not _ATTRIBUTION.match(text):
            return text
    subject = " ".join(subject.split())
    return " ".join(_SUBJECT_PREFIX.sub("", subject).split())


def header_safe(text: str) -> str:
    """`text` fit to be a display name in a header: no line breaks or other control
    characters (so no header can be injected through it), whitespace collapsed, at most
    DISPLAY_NAME_CHARS characters."""
    visible = "".join(
        " "
        if unicodedata.category(char)[0] == "C" or unicodedata.category(char) in {"Zl", "Zp"}
        else char
        for char in text
    )
    return " ".join(visible.split())[:DISPLAY_NAME_CHARS].strip()


def address_of(message: Message) -> str | None:
    """The From address, lowercased; None when there is none or it cannot be read."""
    return next(
        (address.lower() for _name, address in _senders(message) if _plausible(address.lower())),
        None,
    )


def name_of(message: Message) -> str:
    """The From's display name, fit for a header (header_safe); "" when it has none."""
    return next((header_safe(name) for name, _address in _senders(message)), "")


def _senders(message: Message) -> list[tuple[str, str]]:
    """(display name, address) of each address in From, decoded; a From the policy refuses
    (a line break hidden in its name) is read for its <address> alone."""
    try:
        header = message.get("From")
        if not isinstance(header, AddressHeader):
            return []
        return [
            (_utf8(address.display_name), _utf8(address.addr_spec).strip())
            for address in header.addresses
        ]
    except Exception:  # as the docstring says
        raw = next((str(value) for key, value in message.raw_items() if key.lower() == "from"), "")
        return [("", _utf8(address).strip()) for address in _ANGLE_ADDRESS.findall(raw)]


def _utf8(text: str) -> str:
    """Text from an 8-bit header, whose bytes the parser keeps as surrogate escapes: as
    UTF-8, with U+FFFD for bytes that are not."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _plausible(address: str) -> bool:
    """An address with a local part and a domain and nothing a header could not carry
    (U+FFFD stands for bytes that were not UTF-8)."""
    local, at, domain = address.rpartition("@")
    return bool(at and local and domain) and not any(
        char.isspace() or unicodedata.category(char)[0] == "C" or char in '<>,;"\ufffd'
        for char in address
    )


def _automatic_sender(address: str) -> bool:
    return address.lower().partition("@")[0] in _AUTOMATIC_SENDERS


def _header(message: Message, name: str) -> str:
    """A header's decoded value ("" when absent); its raw text when it cannot be decoded."""
    try:
        value = message.get(name)
        return "" if value is None else str(value)
    except Exception:  # a header policy.default cannot parse: read it as it came
        for key, raw in message.raw_items():
            if key.lower() == name.lower():
                return str(raw)
        return ""


def _content_type(message: Message) -> str:
    try:
        return message.get_content_type()
    except Exception:  # a Content-Type header the policy cannot parse
        return "text/plain"


def _param(message: Message, name: str) -> str:
    try:
        value = message.get_param(name, "")
    except Exception:  # as above
        return ""
    return value if isinstance(value, str) else ""


def _part_count(message: Message, *, stop_after: int) -> int:
    """Leaf parts (attached mails' parts included), counting no further than stop_after:
    a mail nested too deep to walk counts as too many."""
    count = 0
    try:
        for part in message.walk():
            if not part.is_multipart():
                count += 1
                if count >= stop_after:
                    break
    except RecursionError:
        return stop_after
    return count


def _recipient_fields(message: Message) -> list[Message]:
    """The field groups of a report's message/delivery-status part: the per-message group
    first (it names no recipient), then one per recipient; all of them, for the reports
    that leave out the blank line between the first two."""
    try:
        for part in message.walk():
            if _content_type(part) == "message/delivery-status":
                groups = part.get_payload()
                if isinstance(groups, list):
                    return [group for group in groups if isinstance(group, Message)]
    except RecursionError:
        pass
    return []


def _quoted(report: Message) -> tuple[str, ...]:
    """The Message-IDs a report quotes of the mail that failed: the Message-ID of the
    mail it returns (a message/rfc822 part) or of its headers (text/rfc822-headers), and
    the report's own In-Reply-To and References; at most QUOTED_IDS."""
    values = [_header(report, "In-Reply-To"), _header(report, "References")]
    try:
        for part in report.walk():
            kind = _content_type(part)
            if kind == "message/rfc822":
                returned = part.get_payload()
                if isinstance(returned, list) and returned and isinstance(returned[0], Message):
                    values.append(_header(returned[0], "Message-ID"))
            elif kind == "text/rfc822-headers":
                headers = _decoded(part).encode("utf-8", "replace")
                values.append(_header(parse(headers), "Message-ID"))
    except RecursionError:
        pass
    found = _MESSAGE_ID.findall(" ".join(values))
    return tuple(dict.fromkeys(found))[:QUOTED_IDS]


def _recipient(fields: Message) -> str | None:
    for name in ("Final-Recipient", "Original-Recipient"):
        value = _header(fields, name)
        kind, _, address = value.partition(";")
        address = address.strip().strip("<>").strip().lower()
        if kind.strip().lower() == "rfc822" and _plausible(address):
            return address
    return None


def _body_text(message: EmailMessage) -> str:
    """The text/plain part, else the HTML part's text, else ""."""
    try:
        body = message.get_body(preferencelist=("plain", "html"))
    except Exception:  # a structure too malformed to search
        return ""
    if body is None:
        return ""
    text = _decoded(body)
    return _html_text(text) if _content_type(body) == "text/html" else text


def _decoded(part: Message) -> str:
    """A text part's content in its declared charset (UTF-8 when missing or unknown)."""
    try:
        payload = part.get_payload(decode=True)
    except Exception:  # a transfer encoding beyond repair
        return ""
    if not isinstance(payload, bytes):
        return ""
    try:
        charset = part.get_content_charset()
    except Exception:  # a malformed charset parameter
        charset = None
    return _text(payload, charset)


def _text(payload: bytes, charset: str | None) -> str:
    """`payload` in `charset` (UTF-8 when missing or unknown), undecodable bytes replaced."""
    charset = charset or "utf-8"
    try:
        codecs.lookup(charset)
    except Exception:  # an unknown or malformed charset name
        charset = "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except Exception:  # a codec that fails on errors="replace" input
        return payload.decode("utf-8", errors="replace")


def _newest_reply(text: str) -> str:
    """The top reply of a body, without quoted replies below it and its signature."""
    if not text.strip():
        return ""
    head = "\n".join(line[:LINE_CHARS] for line in text[:READ_CHARS].splitlines())
    try:
        replies = _REPLY_PARSER.read(head).replies
    except Exception:  # the parser is regular expressions; text it chokes on reads as is
        return head
    return next((reply.body for reply in replies if reply.body), "")


class _HtmlText(HTMLParser):
    """The text of an HTML body, one line per block, quoted blocks marked with "> "."""

    BLOCKS = frozenset(
        {"address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "footer"}
        | {"h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "ol", "p", "pre"}
        | {"section", "table", "td", "th", "tr", "ul"}
    )
    HIDDEN = frozenset({"script", "style", "head", "title", "template"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.line: list[str] = []
        self.quote_depth = 0
        self.hidden_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self.hidden_depth += 1
        elif tag in self.BLOCKS:
            self.end_line()
            if tag == "blockquote":
                self.quote_depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden_depth = max(0, self.hidden_depth - 1)
        elif tag in self.BLOCKS:
            self.end_line()
            if tag == "blockquote":
                self.quote_depth = max(0, self.quote_depth - 1)

    def handle_data(self, data: str) -> None:
        if not self.hidden_depth:
            self.line.append(data)

    def end_line(self) -> None:
        text = " ".join("".join(self.line).split())
        self.line = []
        if text:
            self.lines.append("> " * self.quote_depth + text)
        elif self.lines and self.lines[-1]:
            self.lines.append("")


def _html_text(html: str) -> str:
    reader = _HtmlText()
    try:
        reader.feed(html)
        reader.close()
    except Exception:  # html.parser is lenient; this is the rest
        pass
    reader.end_line()
    return "\n".join(reader.lines)
