#!/usr/bin/env python3
"""Regenerates tests_data.rs from runs of the reference engine.

    python3 tests_data_gen.py show                  # print every case and its output
    python3 tests_data_gen.py gen tests_data.rs     # write the Rust tables

Each case becomes a `{msg|message args...}` template rendered by ref-batch.js (set
REF_BATCH to its path; default: the shared difftest checkout) with the message and
argument values as data. Cases the reference fails on are reported and left out.
"""
import json, os, subprocess, sys
REF_BATCH = os.environ.get('REF_BATCH', '/work/shared/difftest/ref-batch.js')
M = object()  # an argument variable that resolves to missing

cases = []  # (locale, msg, args[(name, value)])
def c(msg, *args, locale='en'):
    cases.append((locale, msg, list(args)))
def P(v): return ('', v)
def K(k, v): return (k, v)

# --- basics / args
c("Hello", )
c("{0} {1} {2}", P("a"), P(2), P(True))
c("{foo} {bar} {0} {1} {2} {x} {y}", P("FOO"), P("BAR"), P("BAZ"), K("x", 123), K("y", "abc"))
c("Hi, {name} {1} contains {2 plural one {# item} other {# items}}.", K("name", "Bob"), P("your shopping cart"), P(3))
c("{0}|{1}|{2}|{3}|{4}|{5}", P(None), P(M), P([1, 2]), P({"a": 1}), P(1.5), P(False))
c("{0}|{1}", P({"decimalValue": "12.50", "currencyCode": "USD"}), P({"value": 3, "currency": "EUR"}))
c("{0}", P({"decimalValue": None, "value": 5}))
c("{5}|{1}", P("a"))
c("{007}|{0.9}|{01.9}|{019}|{0195}|{05}", P("zero"), P("one"), P("two"), P("three"), P("four"), P("five"))
c("{123abc}|{a.b}|{a-b}|{名前}|{_x}", K("a", "A"), K("名前", "N"), K("_x", "U"))
c("{0}|{1}", K("1", "K1"), P("P1"))
c("{x}", K("x", "first"), K("x", "second"))
c("{0}{1}", K("0", "k0"))
c("{ 0 }|{,0,}|{\t0\n}|{ name }", P("v"), K("name", "n"))
c("{0;1}|{0;}|{a;b}", P("v0"), P("v1"))
c("{99999999999999999999999}|{1e2}", P("x"))
c("{toString}|{constructor}|{__proto__}", P("x"))
# --- plural basics (en)
msg_all = "{0 plural zero{# ZERO} one{# ONE} two{# TWO} few{# FEW} many{# MANY} other{# OTHER}}"
ord_all = "{0 selectordinal zero{# ZERO} one{# ONE} two{# TWO} few{# FEW} many{# MANY} other{# OTHER}}"
nums = ["0", "0.0", "0.1", "1", "1.0", "1.1", "2", "2.0", "3", "5", "8", "17", "17.0", "100", "101", "200"]
for loc in ["en", "en-US", "fr-FR", "de-DE", "pl-PL", "ja-JP", "ru-RU", "ar", "cy", "pt-PT", "pt", "cs", "he", "lt", "gl", "vi", "es", "bg", "af"]:
    for n in nums + ["11", "12", "13", "21", "22", "23", "24", "25", "102", "111", "1000000", "1e6", "1.5", "0.5", "-1", "-2", "1234.5"]:
        c(msg_all, P(n), locale=loc)
    for n in [1, 1.0, 0.0, 2, 1.5, 1000000]:
        c(msg_all, P(n), locale=loc)
    for n in ["0", "1", "2", "3", "4", "5", "6", "8", "10", "11", "12", "13", "21", "22", "23", "101", "111", "1.0", "2.5"]:
        c(ord_all, P(n), locale=loc)
c("The {0 selectordinal one{#st} two{#nd} few{#rd} other{#th}} item is a {1}.", P(1), P("guitar"))
c("you have {0} item{0 plural one{} other{s}} in your cart, do you want to purchase {0 plural one{it} other{them}}?", P(1), P("Fred"))
c("you have {0} item{0 plural other{s}} in your cart", P(1))
c("you have {0} item{0 plural other{s}} in your cart", P(3))
# exact matches
ex = "{0 plural =0{none} =1{exactly one #} one{one #} =2.5{two and a half #} other{# items}}"
for n in ["0", "0.00", "-0", "1", "1.0", "1.000", "2.5", "2.50", "3", "1e0", "abc", "", "NaN", "Infinity"]:
    c(ex, P(n))
for v in [0, 1, True, False, None, M, {"decimalValue": "1"}, {"value": "2.5"}, {"a": 1}, [1], 1.5]:
    c(ex, P(v))
c(ex)  # no argument at all -> NaN
c("{0 plural one{one #} =1{exact #} other{#}}", P(1))
c("{0 plural other{#} =1{exact}}", P(1))
c("{0 plural =007{seven #} other{#}}", P("7.0"))
c("{0 plural =1.50{x #} other{#}}", P("1.5"))
# offset
off = "{0 plural offset:1 =0{nobody} =1{just {1}} one{{1} and # other} other{{1} and # others}}"
for n in [0, 1, 2, 3, 10, "2.0", "1.5"]:
    c(off, P(n), P("Ann"))
c("{0 plural offset:-1 one{# one} other{# other}}", P(0))
c("{0 plural offset:-1 other{#}}", P("-1"))
c("{0 plural offset:2 other{#}}", P("0.00"))
c("{0 plural offset:0 one{# one} other{# other}}", P(1))
c("{0 plural offset:-0 one{# one} other{# other}}", P(1))
c("{0 plural offset:1 one{# one} other{# other}}", P("2.50"))
c("{0 plural offset:1 other{#}}")
c("{0 plural offset:99999999999999999999 other{#}}", P(1))
c("{0 plural  offset:1  other{#}}", P(5))
c("{0 plural offset: 1 other{#}}", P(5))
c("{0 plural offset:1x other{#}}", P(5))
c("{0 selectordinal offset:1 one{#st} two{#nd} few{#rd} other{#th}}", P(3))
# # formatting
for v in ["1234.5", "1234567.891", "1e3", "1.5e-3", "-0", "-0.0", "+5", "007", "0.10", "1-2", "12.5e-1"]:
    c("{0 plural other{#}}", P(v), locale='de-DE')
for v in [1234.5, 1e21, 1e-7, 0.1, -3, 123456789012]:
    c("{0 plural other{#}}", P(v))
c("{0 plural other{# and #, ##}}", P(2))
c("{0 plural other{'#'|''#''|'{#}'}}", P(2))
c("a # b {0} #", P(2))
# select
sel = "{0 select male{he} female{she} other{they}}"
for v in ["male", "female", "other", "x", "", True, 1, None, M, {"value": "male"}, ["male"]]:
    c(sel, P(v))
c(sel)
c("{0 select male{he} female{she}}", P("x"))
c("{0 select male{he} other{they #} other{second #}}", P("x"))
c("{0 select other{first} male{he} other{second}}", P("other"))
c("{0 select true{yes} false{no} other{?}}", P(True))
c("{0 select true{yes} false{no} other{?}}", P(False))
c("{0 select 1{one} 1.5{x} other{? #}}", P(1))
c("{0 select 1{one} other{? #}}", P(1.5))
c("{0 select a{# is a} other{# is other}}", P("a"))
c("{0 select a{# is a} other{# is other}}", P({"decimalValue": "3.50"}))
c("{0 select a{x} -b{y} other{z}}", P("q"))
c("{0 select a {x} , b{y}, other {z}}", P("b"))
c("{g select male{{n plural one{his # cat} other{his # cats}}} other{{n plural one{their # cat} other{their # cats}}}}", K("g", "male"), K("n", 1))
c("{g select male{{n plural one{his # cat} other{his # cats}}} other{{n plural one{their # cat} other{their # cats}}}}", K("g", "x"), K("n", 3))
c("{0 plural one{{1 select a{# A} other{# O}}} other{{1 select a{# A2 {0}} other{# O2}}}}", P(1), P("a"))
c("{0 plural one{{1 select a{# A} other{# O}}} other{{1 select a{# A2 {0}} other{# O2}}}}", P(2), P("b"))
c("{0 plural other{{1 plural other{# inner} } # outer}}", P(2), P(3))
c("{0 plural one{{0 selectordinal one{#st} other{#th}}} other{many}}", P(1))
# escapes
c("It''s {0}", P("x"))
c("'{0}' is literal", P("x"))
c("don't {0} x", P("y"))
c("a '{' b '}' c {0}", P("x"))
c("a '' b ''' c '''' d", P("x"))
c("'unterminated {0}", P("x"))
c("{0 plural one{it''s #} other{'{'#'}'}}", P(1))
c("{0 plural one{it''s #} other{'{'#'}'}}", P(2))
c("{0 plural other{a'}'b}}", P(2))
c("{0 plural other{a'b}} c'd", P(2))
c("{0 select a{'x}'} other{y}}", P("a"))
c("x {0 plural other{q}} 'tail", P(1))
c("{'0'}", P("x"))
c("{0'}'}", P("x"))
c("''{0}''", P("x"))
# hidden tags
c("{-0} {-foo bar} {-} x", P("v"))
c("{0 plural one{-x} other{-y}}", P(1))
c("{0 plural one{-x} other{{-y}}}", P(2))
c("{0 plural one {-x}} z", P(1))
# whitespace and commas
c("{0,plural,one{a}other{b}}", P(1))
c("{0, plural, one {a} other {b}}", P(2))
c("{ 0  plural\n one {a}\n other {b} }", P(2))
c("{0 plural\tone{a}\tother{b}}", P(1))
c("{0 plural one{ a } other{ b }}", P(1))
c("{0 plural one{a}other{b}}", P(2))
c("{0\u00a0plural one{a} other{b}}", P(2))
c("{0\u3000plural one{a} other{b}}", P(2))
c("{0\u0085plural one{a} other{b}}", P(2))
# malformed
for m in ["{", "}", "{{", "}}", "a{b", "a}b", "{0", "{0 plural", "{0 plural}", "{0 plural one}", "{0 plural one{a}", "{0 plural one{a} other{b}",
          "{0 plural one{a} bogus{c} other{b}}", "{0 plural one{a} other {b} junk}", "{0 foo}", "x{0 foo bar}y", "{}", "{ }", "{,}",
          "{0 pluralx one{a} other{b}}", "{0 plural others{a}}", "{0 plural one {a} =x{b}}", "{0 plural =1.{a} other{b}}", "{0 plural =-1{a} other{b}}",
          "{0 select}", "{0 select a}", "{0 select {a}}", "{0 selectx a{1}}", "{0 select a{x} other{y} }", "{0 plural zero{z}}", "{0 plural one{a}}",
          "{0 plural other{# {x y} {1 foo} {} #}}", "{0 plural other{{0 plural}}}", "{0 plural other{{{x}}}}", "{0 plural other{a{b}c}}",
          "{0 plural other{{-h} #}}", "{0 plural other{{0 bogus #}}}", "{{0}}", "{ {0} }", "a {0 plural other{b} c", "{0 plural other{b}} {",
          "{0 plural one{a}} other{b}}", "{0}}}", "{{{0}", "{0 plural other{x}}}{0}", "#{0 plural other{#}}#", "{0 plural other{'}}", "{0 plural other{''}}",
          "{0 plural one {a} other {b}} {0 select x {1} other {2}}", "{0 plural one{{1}} other{{2}}}", "{0\u0000}", "{0 plural\u0000one{a} other{b}}",
          "{0 decimal", "{0 decimal}", "{0 unit in:byte}", "{0 currency style:name}", "{0 plural one{{0 unit in:byte}} other{{0 unit}}}",
          "{0 plural other{{0 decimal}}}", "{0 select other{{0 decimal maxfrac:2}}}", "{0 plural one{#} other{#} one{dup}}",
          "{0 plural one{a}\n}", "{0plural one{a}}", "{0 plural,one{a},other{b}}", "{0 Plural one{a}}", "{0 PLURAL one{a}}"]:
        c(m, P(1))
c("{0 plural other{#}}", P("x"))  # string that is not a number -> 0
c("{0 plural other{#}}", P("1,000"))
c("{0 plural one{#} other{# o}}", P(" 1"))
c("{0 plural =0{z #} other{#}}", P("Infinity"))
c("{0 plural =0{z #} other{#}}", P("NaN"))
c("{0 plural zero{z #} one{o #} other{#}}", P("nan"), locale='ar')
c("{0 plural one{o #} other{#}}", P("-Infinity"), locale='fr')
c("{0 plural one{#} other{# o}}", P({"decimalValue": "abc"}))
c("{0 plural one{#} other{# o}}", P({"decimalValue": 1}))
c("{0 plural one{#} other{# o}}", P({"value": True}))
c("{0 plural one{#} other{# o}}", P({"value": {"x": 1}}))
c("{0 plural one{#} other{# o}}", P([1]))
c("{0 plural one{#} other{# o}}", P(True))
c("{0 plural one{#} other{# o}}", P(False))
c("{0 plural one{#} other{# o}}", P(None))
c("{0 plural one{#} other{# o}}", P(M))
c("{n plural one{# x} other{# y}}", K("n", 1))
c("{n plural one{# x} other{# y}}", P(1))
c("{1 plural one{# x} other{# y}}", K("1", 1), P(5))
# pl / fr / de / ja specific messages
pl = "{0 plural one{# plik} few{# pliki} many{# plików} other{# pliku}}"
for n in [0, 1, 2, 4, 5, 12, 22, 25, 112, 1.5, "1.0", "2.0", "22.0"]:
    c(pl, P(n), locale='pl-PL')
fr = "{0 plural one{# fichier} many{# de fichiers} other{# fichiers}}"
for n in [0, 1, 1.5, 2, "1.99", 1000000, "1000000.0", "2e6"]:
    c(fr, P(n), locale='fr-FR')
c("{0 selectordinal one{#er} other{#e}}", P(1), locale='fr-FR')
c("{0 selectordinal one{#er} other{#e}}", P(2), locale='fr-FR')
de = "{0 plural one{# Datei} other{# Dateien}}"
for n in [0, 1, "1.0", 2, 1234.5]:
    c(de, P(n), locale='de-DE')
c("{0 selectordinal other{#.}}", P(3), locale='de-DE')
ja = "{0 plural one{# one} other{# 個}}"
for n in [0, 1, 2]:
    c(ja, P(n), locale='ja-JP')
ru = "{0 plural one{# файл} few{# файла} many{# файлов} other{# файла}}"
for n in [1, 2, 5, 11, 21, 22, 25, 1.5]:
    c(ru, P(n), locale='ru-RU')
c("{0 selectordinal one{#st} two{#nd} few{#rd} other{#th}}", P(2), locale='cy')
# unicode around
c("ünïcødé {0} 🎉 {1 select a{é} other{ö}}", P("ß"), P("a"))
c("🎉{0 plural other{# 🎉 #}}🎉", P(2))
c("{0 select 🎉{party} other{none}}", P("🎉"))


# conformance-spec messages
for cnt, name in [(1, "Apple"), (2, "Microsoft"), (3, "Google"), (0, "Hooli")]:
    c("The {1} blog has {0 plural one{# post} other{# posts}}.", P(cnt), P(name))
    c("There {0 plural one{is # entry} other{are # entries}} posted to the {1} blog.", P(cnt), P(name))
for place, name in [(1, "Usain Bolt"), (2, "Justin Gatlin"), (3, "Andre de Grasse"), (4, "Yohan Blake"), (5, "Akani Simbine"), (11, "x"), (12, "y"), (13, "z"), (21, "w"), (22, "v"), (23, "u"), (101, "t"), (111, "s")]:
    c("{1} came in {0 selectordinal one{#st} two{#nd} few{#rd} other{#th}} place.", P(place), P(name))
for cnt, cust in [(1, "Fred"), (3, "Larry")]:
    c("you have {0} item{0 plural one{} other{s}} in your cart, do you want to purchase {0 plural one{it} other{them}}?", P(cnt), P(cust))
for i, item in enumerate(["guitar", "sax", "drum set", "flute"]):
    c("The {0 selectordinal one{#st} two{#nd} few{#rd} other{#th}} item is a {1}.", P(i + 1), P(item))
c("{0 plural one{{1} to bytes: {1 unit in:byte}} other{{1} to bits: {1 unit in:bit}}}", P(1), P("1234567890"))
c("{0 plural one{{1} to bytes: {1 unit in:byte}} other{{1} to bits: {1 unit in:bit}}}", P(5), P("1234567890"))
c("Transmission of {data unit in:byte compact:bytes} took {elapsed unit in:second sequence:hour,minute,second format:long}", K("data", "12345657890"), K("elapsed", "12345"))

def run(cases):
    lines = []
    for loc, msg, args in cases:
        data = {'msg': msg}
        targs = []
        for i, (name, v) in enumerate(args):
            var = 'nothere' if v is M else 'v%d' % i
            if v is not M:
                data[var] = v
            targs.append(('%s:%s' % (name, var)) if name else var)
        t = '{msg|message' + ''.join(' ' + a for a in targs) + '}'
        lines.append(json.dumps({'template': t, 'data': data, 'locale': loc}))
    p = subprocess.run(['node', REF_BATCH], input='\n'.join(lines) + '\n', capture_output=True, text=True)
    outs = [json.loads(l) for l in p.stdout.splitlines()]
    assert len(outs) == len(cases), (len(outs), len(cases), p.stderr[-2000:])
    return outs

outs = run(cases)
def rs(s):
    def printable(ch):
        o = ord(ch)
        return o >= 0x20 and o != 0x7f and not (0x80 <= o <= 0xa0) and ch not in '\u2028\u2029\u3000\ufeff'
    if all(printable(ch) for ch in s) and '"' not in s and '\\' not in s:
        return '"' + s + '"'
    if all(printable(ch) for ch in s) and '"#' not in s:
        return 'r#"' + s + '"#'
    out = []
    for ch in s:
        if ch == '"': out.append('\\"')
        elif ch == '\\': out.append('\\\\')
        elif ch == '\n': out.append('\\n')
        elif ch == '\t': out.append('\\t')
        elif not printable(ch): out.append('\\u{%x}' % ord(ch))
        else: out.append(ch)
    return '"' + ''.join(out) + '"'

rows = []
for (loc, msg, args), o in zip(cases, outs):
    if o.get('crash') or o['code'] != 0:
        print('CRASH/ERR', loc, repr(msg), args, o, file=sys.stderr)
        continue
    enc = json.dumps([[n, v] if v is not M else [n] for n, v in args], ensure_ascii=False)
    rows.append((loc, msg, enc, o['out']))
NESTED = ('decimal', 'number', 'money', 'currency', 'datetime')
mode = sys.argv[1] if len(sys.argv) > 1 else 'show'
if mode == 'show':
    for r in rows:
        print(r[0], repr(r[1]), r[2], '=>', repr(r[3]))
else:
    cat_rows = [r for r in rows if r[1] in (msg_all, ord_all)]
    other = [r for r in rows if r[1] not in (msg_all, ord_all)]
    with open(sys.argv[2], 'w') as f:
        f.write('//! Expected outputs, generated from runs of the reference engine\n')
        f.write('//! (@squarespace/template-engine 2.10.10 with @phensley/cldr 1.14.0) through\n')
        f.write('//! `{msg|message args...}` templates. Arguments are JSON `[name, value]` pairs: name\n')
        f.write('//! `""` for positional ones, no value for a variable that resolves to missing.\n\n')
        f.write('/// (locale, message, arguments, output)\n')
        f.write('pub(super) const CASES: &[(&str, &str, &str, &str)] = &[\n')
        for loc, msg, enc, out in other:
            f.write('    (%s, %s, %s, %s),\n' % (rs(loc), rs(msg), rs(enc), rs(out)))
        f.write('];\n\n')
        f.write('/// Every plural category, cardinal and ordinal: (locale, ordinal, positional argument, output)\n')
        f.write('/// of `{0 plural|selectordinal zero{# ZERO} one{# ONE} two{# TWO} few{# FEW} many{# MANY} other{# OTHER}}`.\n')
        f.write('pub(super) const CATEGORIES: &[(&str, bool, &str, &str)] = &[\n')
        for loc, msg, enc, out in cat_rows:
            arg = json.dumps(json.loads(enc)[0][1], ensure_ascii=False)
            f.write('    (%s, %s, %s, %s),\n' % (rs(loc), 'true' if msg == ord_all else 'false', rs(arg), rs(out)))
        f.write('];\n')
    print(len(other), len(cat_rows), 'rows')
