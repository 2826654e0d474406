"""Reading inbound mail: replies as the common clients write them, every charset and
transfer encoding, machines' mail and bounces, limits, and bytes of any shape."""

from __future__ import annotations

import base64
import quopri

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.email.desk import read, read_plain
from bot.email.reading import (
    MAX_BYTES,
    MAX_PARTS,
    Bounce,
    address_of,
    automatic,
    bounce,
    command_text,
    header_safe,
    name_of,
    parse,
    too_big,
)


def crlf(text: str) -> bytes:
    """A mail as it travels: CRLF line ends."""
    return text.replace("\n", "\r\n").encode()


GMAIL_REPLY = crlf("""\
Return-Path: <ann.lee@gmail.com>
MIME-Version: 1.0
References: <g12.p7.outbox.41@paperboard.example>
In-Reply-To: <g12.p7.outbox.41@paperboard.example>
From: Ann Lee <Ann.Lee@gmail.com>
Date: Tue, 24 Nov 2026 10:14:02 +0100
Message-ID: <CAB3x=q9Zr1@mail.gmail.com>
Subject: Re: Hex #12: your move
To: play+g12.s1.2f9c@paperboard.example
Content-Type: multipart/alternative; boundary="000000000000a1b2c3"

--000000000000a1b2c3
Content-Type: text/plain; charset="UTF-8"

d5   G3

On Tue, 24 Nov 2026 at 10:12, Paperboard <play@paperboard.example> wrote:

> Bob played c4. Your move, Ann (2 days 23 hours left).
>
> reply with your move, e.g. d5
>

--000000000000a1b2c3
Content-Type: text/html; charset="UTF-8"

<div dir="ltr">d5   G3</div><br><div class="gmail_quote"><div dir="ltr" \
class="gmail_attr">On Tue, 24 Nov 2026 at 10:12, Paperboard &lt;\
<a href="mailto:play@paperboard.example">play@paperboard.example</a>&gt; wrote:<br></div>\
<blockquote class="gmail_quote">Bob played c4. Your move, Ann.</blockquote></div>

--000000000000a1b2c3--
""")

OUTLOOK_REPLY = crlf("""\
From: "Smith, Bob" <bob.smith@outlook.com>
To: "play+g12.s2.77aa@paperboard.example" <play+g12.s2.77aa@paperboard.example>
Subject: RE: Hex #12: your move
Date: Tue, 24 Nov 2026 09:20:11 +0000
Message-ID: <AM0PR01MB1234@AM0PR01MB1234.eurprd01.prod.outlook.com>
Content-Type: text/plain; charset="us-ascii"
Content-Transfer-Encoding: quoted-printable
MIME-Version: 1.0

resign

Get Outlook for iOS<https://aka.ms/o0ukef>
________________________________
From: Paperboard <play@paperboard.example>
Sent: Tuesday, November 24, 2026 10:12 AM
To: Smith, Bob <bob.smith@outlook.com>
Subject: Hex #12: your move

Ann played d5. Your move, Bob.
""")

APPLE_REPLY = crlf("""\
From: Chloé Martin <chloe@icloud.com>
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable
Mime-Version: 1.0 (Mac OS X Mail 16.0)
Subject: Re: Hex #12: your move
Date: Tue, 24 Nov 2026 10:30:00 +0100
To: play+g12.s1.2f9c@paperboard.example
Message-Id: <A1B2C3D4-1111@icloud.com>

Board

Best regards,
Chlo=C3=A9

> On 24 Nov 2026, at 10:12, Paperboard <play@paperboard.example> wrote:
>=20
> Bob played c4. Your move.
""")

SIGNATURE_REPLY = crlf("""\
From: ann@example.org
Subject: Re: your move
Content-Type: text/plain

> Bob played c4. Your move.

undo
--
Ann, sent from a very long signature
""")

HTML_ONLY = crlf("""\
From: Dana <dana@example.net>
Subject: Re: your move
MIME-Version: 1.0
Content-Type: text/html; charset=windows-1252
Content-Transfer-Encoding: 8bit

<html><head><style>p { color: red }</style><title>ignored</title></head>
<body><p>accept&nbsp;&nbsp;</p><p>Dana</p>
<blockquote type="cite">Bob challenges you to Hex.</blockquote></body></html>
""")

EMPTY_BODY = crlf("""\
From: ann@example.org
Subject: Re: Fwd: RE:  D5
Content-Type: text/plain

""")

EXCHANGE_OUT_OF_OFFICE = crlf("""\
From: Bob Smith <bob.smith@contoso.com>
To: play+g12.s2.77aa@paperboard.example
Subject: Automatic reply: Hex #12: your move
Thread-Topic: Hex #12: your move
Date: Tue, 24 Nov 2026 09:12:14 +0000
Message-ID: <1b2c3d4e@DB7PR.eurprd.prod.outlook.com>
Auto-Submitted: auto-replied
X-MS-Exchange-Inbox-Rules-Loop: bob.smith@contoso.com
X-Auto-Response-Suppress: All
Content-Type: text/plain; charset="us-ascii"
MIME-Version: 1.0

I am out of the office until 1 December with no access to mail.
""")

GMAIL_DSN = crlf("""\
Return-Path: <>
From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>
To: play@paperboard.example
Auto-Submitted: auto-replied
Subject: Delivery Status Notification (Failure)
Message-ID: <65a1f0c2.050a0220.1b2c.0001.GMR@mx.google.com>
Date: Tue, 24 Nov 2026 02:12:13 -0800 (PST)
MIME-Version: 1.0
Content-Type: multipart/report; boundary="000000000000fa11"; report-type=delivery-status

--000000000000fa11
Content-Type: text/plain; charset="UTF-8"

** Address not found **

Your message wasn't delivered to nobody@gmail.com because the address couldn't be found.

--000000000000fa11
Content-Type: message/delivery-status

Reporting-MTA: dns; googlemail.com
Arrival-Date: Tue, 24 Nov 2026 02:12:12 -0800 (PST)

Final-Recipient: rfc822; Nobody@gmail.com
Action: failed
Status: 5.1.1
Remote-MTA: dns; gmail-smtp-in.l.google.com. (142.250.102.26, the server for the domain gmail.com.)
Diagnostic-Code: smtp; 550-5.1.1 The email account that you tried to reach does not exist.
Last-Attempt-Date: Tue, 24 Nov 2026 02:12:13 -0800 (PST)

--000000000000fa11
Content-Type: message/rfc822

From: Paperboard <play@paperboard.example>
To: nobody@gmail.com
Subject: Hex #12: your move

Bob played c4.

--000000000000fa11--
""")

POSTFIX_DSN = crlf("""\
Return-Path: <>
From: MAILER-DAEMON@mx.example.net (Mail Delivery System)
Subject: Delayed Mail (still being retried)
To: play@paperboard.example
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="B1C2D3E4.1732443133/mx.example.net"
Message-Id: <20261124101213.B1C2D3E4@mx.example.net>

This is a MIME-encapsulated message.

--B1C2D3E4.1732443133/mx.example.net
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.example.net.

####################################################################
# THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #
####################################################################

--B1C2D3E4.1732443133/mx.example.net
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net
X-Postfix-Queue-ID: B1C2D3E4
X-Postfix-Sender: rfc822; play@paperboard.example
Arrival-Date: Tue, 24 Nov 2026 06:12:13 +0100 (CET)

Final-Recipient: rfc822; carol@example.net
Original-Recipient: rfc822;carol@example.net
Action: delayed
Status: 4.4.1
Diagnostic-Code: X-Postfix; connect to mail.example.net[192.0.2.7]:25: Connection timed out

--B1C2D3E4.1732443133/mx.example.net
Content-Description: Undelivered Message Headers
Content-Type: text/rfc822-headers

From: Paperboard <play@paperboard.example>
To: carol@example.net
Subject: Hex #12: your move

--B1C2D3E4.1732443133/mx.example.net--
""")


def encoded(text: str, charset: str, encoding: str) -> bytes:
    """A one-part reply whose body is `text` in `charset` and transfer `encoding`."""
    raw = text.replace("\n", "\r\n").encode(charset)
    body = base64.encodebytes(raw) if encoding == "base64" else quopri.encodestring(raw)
    head = crlf(f"""\
From: =?{charset}?B?{base64.b64encode("Ann".encode(charset)).decode()}?= <ann@example.jp>
Subject: Re: your move
MIME-Version: 1.0
Content-Type: text/plain; charset="{charset}"
Content-Transfer-Encoding: {encoding}

""")
    return head + body


REPLIES = {
    "gmail": (GMAIL_REPLY, "d5 G3"),
    "outlook": (OUTLOOK_REPLY, "resign"),
    "apple mail": (APPLE_REPLY, "Board"),
    "signature under a quote": (SIGNATURE_REPLY, "undo"),
    "html only": (HTML_ONLY, "accept"),
    "empty body: the subject": (EMPTY_BODY, "D5"),
    "iso-8859-1 quoted-printable": (
        encoded("défi hex bob@example.org\n\n> Célia wrote", "iso-8859-1", "quoted-printable"),
        "défi hex bob@example.org",
    ),
    "shift_jis base64": (
        encoded("ｄ５\n\n2026年11月24日 10:12 Paperboard:\n> 対局", "shift_jis", "base64"),
        "ｄ５",
    ),
    "utf-8 base64": (encoded("Żółw   e4\n\n-- \nŻ", "utf-8", "base64"), "Żółw e4"),
}


@pytest.mark.parametrize("raw,command", REPLIES.values(), ids=REPLIES.keys())
def test_the_command_is_the_first_line_of_the_newest_reply(raw: bytes, command: str) -> None:
    message = parse(raw)
    assert command_text(message) == command
    assert not automatic(message)
    assert bounce(message) is None
    assert too_big(raw, message) is None


def test_the_from_address_is_lowercased() -> None:
    assert address_of(parse(GMAIL_REPLY)) == "ann.lee@gmail.com"
    assert address_of(parse(OUTLOOK_REPLY)) == "bob.smith@outlook.com"
    assert address_of(parse(encoded("x", "shift_jis", "base64"))) == "ann@example.jp"
    assert address_of(parse(crlf("From: Jörg <Jörg@example.de>\n"))) == "jörg@example.de"  # 8-bit
    assert address_of(parse(b"Subject: no sender\r\n\r\nd5")) is None
    assert address_of(parse(b"From: Ann <not an address>\r\n\r\nd5")) is None
    assert address_of(parse(b"From: \xff\xfe <\xff@\xfe>\r\n\r\nd5")) is None


def test_the_from_name_is_decoded_and_safe() -> None:
    assert name_of(parse(GMAIL_REPLY)) == "Ann Lee"
    assert name_of(parse(OUTLOOK_REPLY)) == "Smith, Bob"
    assert name_of(parse(APPLE_REPLY)) == "Chloé Martin"
    assert name_of(parse(encoded("x", "shift_jis", "base64"))) == "Ann"
    assert name_of(parse(b"From: ann@example.org\r\n\r\nd5")) == ""
    assert name_of(parse(b"Subject: no sender\r\n\r\nd5")) == ""


def test_nothing_to_read_is_empty() -> None:
    assert command_text(parse(b"From: a@b.c\r\n\r\n")) == ""
    assert command_text(parse(b"From: a@b.c\r\nSubject: Re: \r\n\r\n> only quotes\r\n")) == ""
    assert command_text(parse(b"")) == ""


MACHINES = {
    "exchange out of office": EXCHANGE_OUT_OF_OFFICE,
    "gmail bounce": GMAIL_DSN,
    "postfix delay": POSTFIX_DSN,
    "mailing list": crlf("From: a@b.c\nList-Id: <hex.lists.example>\n\nd5"),
    "list unsubscribe": crlf("From: a@b.c\nList-Unsubscribe: <mailto:u@b.c>\n\nd5"),
    "bulk": crlf("From: a@b.c\nPrecedence: Bulk\n\nd5"),
    "junk": crlf("From: a@b.c\nPrecedence: junk\n\nd5"),
    "auto-generated": crlf("From: a@b.c\nAuto-Submitted: auto-generated; owner-email=x@y\n\nd5"),
    "x-autoreply": crlf("From: a@b.c\nX-Autoreply: yes\n\nd5"),
    "null return path": crlf("Return-Path: <>\nFrom: a@b.c\n\nd5"),
    "postmaster": crlf("Return-Path: <Postmaster@b.c>\nFrom: a@b.c\n\nd5"),
    "read receipt": crlf(
        "From: a@b.c\nContent-Type: multipart/report; report-type=disposition-notification;"
        ' boundary="x"\n\n--x\nContent-Type: text/plain\n\nread\n--x--\n'
    ),
}


@pytest.mark.parametrize("raw", MACHINES.values(), ids=MACHINES.keys())
def test_machines_mail_is_never_answered(raw: bytes) -> None:
    assert automatic(parse(raw))


def test_a_person_is_not_a_machine() -> None:
    assert not automatic(parse(crlf("Auto-Submitted: no\nPrecedence: first-class\nFrom: a@b.c\n")))
    # Exchange asks for no auto-replies on people's mail too: it marks no machine
    outlook = OUTLOOK_REPLY.replace(
        b"MIME-Version", b"X-Auto-Response-Suppress: All\r\nMIME-Version"
    )
    assert not automatic(parse(outlook))
    assert command_text(parse(outlook)) == "resign"


def test_bounces_name_the_failed_recipients() -> None:
    assert bounce(parse(GMAIL_DSN)) == Bounce(("nobody@gmail.com",), hard=True)
    assert bounce(parse(POSTFIX_DSN)) == Bounce(("carol@example.net",), hard=False)
    assert bounce(parse(EXCHANGE_OUT_OF_OFFICE)) is None
    delivered = POSTFIX_DSN.replace(b"Action: delayed", b"Action: delivered")
    assert bounce(parse(delivered.replace(b"Status: 4.4.1", b"Status: 2.0.0"))) is None


def test_a_bounce_quotes_the_message_ids_of_the_mail_that_failed() -> None:
    """The returned mail's (message/rfc822) or its headers' (text/rfc822-headers), and
    the report's In-Reply-To: what shows which of the bot's mails failed, if any."""
    ours = b"Message-ID: <o7.abcdefghijklmnop@paperboard.example>\r\n"
    gmail = GMAIL_DSN.replace(
        b"To: nobody@gmail.com\r\nSubject", b"To: nobody@gmail.com\r\n" + ours + b"Subject"
    )
    postfix = POSTFIX_DSN.replace(
        b"To: carol@example.net\r\nSubject", b"To: carol@example.net\r\n" + ours + b"Subject"
    )
    replying = POSTFIX_DSN.replace(b"Message-Id:", b"In-Reply-To: <a1@b.c>\r\nMessage-Id:")
    assert gmail != GMAIL_DSN and postfix != POSTFIX_DSN and replying != POSTFIX_DSN
    for report in (gmail, postfix):
        found = bounce(parse(report))
        assert found is not None
        assert found.message_ids == ("<o7.abcdefghijklmnop@paperboard.example>",)
    found = bounce(parse(replying))
    assert found is not None and found.message_ids == ("<a1@b.c>",)
    assert read(gmail, []).bounce_ids == ("<o7.abcdefghijklmnop@paperboard.example>",)


def test_a_report_without_the_blank_line_after_its_first_group_is_read() -> None:
    joined = GMAIL_DSN.replace(b"(PST)\r\n\r\nFinal-Recipient", b"(PST)\r\nFinal-Recipient")
    assert joined != GMAIL_DSN
    assert bounce(parse(joined)) == Bounce(("nobody@gmail.com",), hard=True)


def test_a_report_of_hard_and_soft_failures_names_the_hard_ones() -> None:
    both = POSTFIX_DSN.replace(
        b"Final-Recipient: rfc822; carol",
        b"Final-Recipient: rfc822; dan@example.net\r\nAction: failed\r\nStatus: 5.2.2\r\n\r\n"
        b"Final-Recipient: rfc822; carol",
    )
    assert bounce(parse(both)) == Bounce(("dan@example.net",), hard=True)


def test_a_mail_over_the_limits_gets_one_sentence() -> None:
    attachment = base64.encodebytes(bytes(range(256)) * 900).decode()
    big = crlf(
        "From: a@b.c\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n"
        f"--b\nContent-Type: text/plain\n\nd5\n--b\nContent-Type: image/png\n"
        f"Content-Transfer-Encoding: base64\n\n{attachment}--b--\n"
    )
    assert MAX_BYTES < len(big) < 2 * MAX_BYTES  # about 300 KB
    refusal = too_big(big, parse(big))
    assert refusal is not None and "256 KB" in refusal and "\n" not in refusal
    assert command_text(parse(big)) == "d5"  # it can still be read, to answer the sentence

    parts = "".join(f"--b\nContent-Type: text/plain\n\n{n}\n" for n in range(MAX_PARTS + 1))
    many = crlf(f"From: a@b.c\nContent-Type: multipart/mixed; boundary=b\n\n{parts}--b--\n")
    refusal = too_big(many, parse(many))
    assert refusal is not None and str(MAX_PARTS) in refusal
    fits = many.replace(b"--b\r\nContent-Type: text/plain\r\n\r\n10\r\n", b"")
    assert too_big(fits, parse(fits)) is None


def test_names_cannot_inject_headers() -> None:
    name = "Ann\r\nBcc: everyone@example.org\r\n\r\nbody\x00\x1b[31m\u2028\u0085\u200e"
    safe = header_safe(name)
    assert safe == "Ann Bcc: everyone@example.org body [31m"
    assert all(ord(char) >= 32 for char in safe)
    assert header_safe("ann (by email)") == "ann (by email)"
    assert len(header_safe("x" * 1000)) <= 64

    raw = crlf(
        "From: =?utf-8?q?Ann=0D=0ABcc:_x@y.z?= <ann@example.org>\nSubject: =?utf-8?q?a=0D=0Ab?=\n"
    )
    message = parse(raw)
    assert address_of(message) == "ann@example.org"
    assert name_of(message) == ""  # the policy refuses that name: the address alone is read
    assert "\n" not in command_text(message)
    folded = parse(crlf("From: =?utf-8?b?QW5uCkJjYzogeEB5Lno=?=\n <ann@example.org>\n"))
    assert "\n" not in name_of(folded)


SAMPLES = [raw for raw, _command in REPLIES.values()] + list(MACHINES.values())


def spliced(sample: bytes) -> st.SearchStrategy[bytes]:
    """The sample with arbitrary bytes put in at any point."""
    return st.tuples(st.integers(0, len(sample)), st.binary(max_size=64)).map(
        lambda cut: sample[: cut[0]] + cut[1] + sample[cut[0] :]
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000) | st.sampled_from(SAMPLES).flatmap(spliced))
def test_no_bytes_make_reading_raise(raw: bytes) -> None:
    message = parse(raw)
    too_big(raw, message)
    command_text(message)
    automatic(message)
    bounce(message)
    address_of(message)
    name_of(message)


#: Header lines of plain mails, in the shapes `plain` reads and in shapes next to them
#: that it leaves to the parser.
PLAIN_HEADERS = [
    "From: ann@example.org",
    "From: Ann Lee <Ann.Lee@Example.org>",
    'From: "Smith, Bob" <bob@example.org>',
    'From: "" <bob@example.org>',
    "From: <carol@example.org>",
    "From: O'Hara<oh@example.org>",
    "From: mailer-daemon@example.org",
    "From: Ann <not an address>",
    "From: ann@example.org (Ann)",
    "From: a@b.c, d@e.f",
    "From: Ann B. Lee <ann@example.org>",
    'From: "Ann \\"A\\" Lee" <ann@example.org>',
    "From: Ann\r\n Lee <ann@example.org>",
    "From: =?utf-8?q?Ann?= <ann@example.org>",
    "Subject: Re: Hex #12",
    "Subject: RE:  Fwd: d5",
    "Subject:\tboard",
    "Subject: a long\r\n\tfolded subject",
    "Subject:",
    "Content-Type: text/plain",
    "Content-Type: text/plain; charset=utf-8",
    'Content-Type: Text/Plain; charset="ISO-8859-1"; format=flowed',
    "Content-Type: text/plain; charset=no-such-charset",
    "Content-Type: text/plain; charset=utf-8; charset=latin-1",
    "Content-Type: text/plain;",
    "Content-Type: text/html; charset=utf-8",
    "Content-Type: multipart/mixed; boundary=x",
    "Content-Transfer-Encoding: 7bit",
    "Content-Transfer-Encoding: 8BIT",
    "Content-Transfer-Encoding: quoted-printable",
    "Content-Transfer-Encoding: base64",
    "Content-Disposition: attachment",
    "Message-ID: <abc.123@mail.example.org>",
    "Message-ID:  <x@y> ",
    "Message-ID: not an id",
    "Message-ID: <" + "m" * 100 + "@example.org>",
    "MIME-Version: 1.0",
    "Auto-Submitted: auto-replied",
    "Auto-Submitted: no",
    "Precedence:  Bulk ",
    "Precedence: first-class",
    "List-Id: <hex.lists.example>",
    "Return-Path: <>",
    "Return-Path: <postmaster@example.org>",
    "Return-Path: <ann@example.org>",
    "X-Mailer: mutt",
    " folded at the start",
    "Not a header",
    "X:\x01",
]
PLAIN_BODIES = [
    b"d5\r\n\r\n> the board\r\n",
    b"",
    b"  D5   g3  \r\n",
    b"-- \r\nAnn\r\n",
    b"On Tue, Paperboard wrote:\r\n> board\r\n",
    b"r\xe9signe\r\n",
    b"\xff\xfe\r\nresign",
    "Żółw e4\r\n".encode(),
    b"x" * 2000,
]


def plain_mail() -> st.SearchStrategy[bytes]:
    """Mails of plain headers and bodies, in any order and number."""
    return st.builds(
        lambda lines, body: "\r\n".join(lines).encode() + b"\r\n\r\n" + body,
        st.lists(st.sampled_from(PLAIN_HEADERS), max_size=8),
        st.sampled_from(PLAIN_BODIES) | st.binary(max_size=40),
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain_mail() | plain_mail().flatmap(spliced) | st.sampled_from(SAMPLES))
def test_a_plain_mail_reads_as_the_parsed_mail_does(raw: bytes) -> None:
    recipients = ["play+g1.s0.p0.x@example.org"]
    quick = read_plain(raw, recipients)
    if quick is not None:
        assert quick == read(raw, recipients)


def test_move_mails_of_plain_text_are_read_without_the_parser() -> None:
    """The shapes `plain` exists for: a move mail of one text/plain part."""
    to = ["play+g1.s0.p0.x@example.org"]
    move = crlf(
        "From: Ann Lee <ann@example.org>\nTo: play+g1.s0.p0.x@example.org\nSubject: Re: Hex #1\n"
        "Message-ID: <1@home.example.org>\nContent-Type: text/plain; charset=utf-8\n"
        "Content-Transfer-Encoding: 7bit\nMIME-Version: 1.0\n\nd5\n\n> the board\n"
    )
    read_quick = read_plain(move, to)
    assert read_quick is not None and read_quick == read(move, to)
    assert (read_quick.sender, read_quick.name, read_quick.command) == (
        "ann@example.org",
        "Ann Lee",
        "d5",
    )
    assert read_plain(move, []) is None  # no envelope (IMAP): the headers' recipients
    assert read_plain(GMAIL_REPLY, to) is None  # multipart
    assert read_plain(move.replace(b"7bit", b"base64"), to) is None
