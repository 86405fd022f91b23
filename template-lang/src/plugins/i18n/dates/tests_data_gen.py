#!/usr/bin/env python3
"""Regenerates tests_data.rs from runs of the reference engine.

    python3 tests_data_gen.py show                      # every case and the reference's output
    python3 tests_data_gen.py gen tests_data.rs [BIN]   # write the Rust tables

Cases are templates rendered by ref-batch.js (REF_BATCH; default: the shared difftest
checkout) with a locale and a clock. Nested message cases are `{msg|message ...}` templates
whose message holds one `{0 datetime ...}` / `{0;1 datetime-interval ...}` tag; the Rust
side calls `nested_datetime` / `nested_interval` directly with the same options.

With BIN (a built `tessera`), cases whose output differs from ours are left out of the
tables and listed on stderr: those are the known CLDR 49 / ICU4X deltas, reported by hand.
"""
import json, os, subprocess, sys, tempfile

REF_BATCH = os.environ.get('REF_BATCH', '/work/shared/difftest/ref-batch.js')
NOW = 1735732800000  # 2025-01-01T12:00:00Z

tpl_cases = []     # (family, locale, now, template, data)
nested_cases = []  # (kind, locale, zone, args, options)


def t(family, template, data, locale='en', now=NOW):
    tpl_cases.append((family, locale, now, template, data))


# --- datetime: widths, zones, DST, calendars, context, skeletons
T1 = 1582571080000   # 2020-02-24 19:04:40Z (EST in New York)
T2 = 1520876934000   # 2018-03-12 17:48:54Z (EDT, the day after the switch)
T3 = 1710054000000   # 2024-03-10 07:00Z (03:00 EDT, just after the spring-forward gap)
T4 = 1699156800000   # 2023-11-05 04:00Z (00:00 EDT, the day clocks fall back)
stamps = {'a': T1, 'b': T2, 'c': T3, 'd': T4}
lines = lambda opts: '\n'.join('{%s|datetime %s}' % (k, opts) for k in stamps)
for loc in ['en', 'en-US', 'de-DE', 'fr-FR', 'ja', 'es']:
    for opts in ['', 'short', 'medium', 'long', 'full', 'date:short', 'date:medium', 'date:long',
                 'date:full', 'time:short', 'time:medium', 'date', 'time', 'date:short time:medium',
                 'date:full time:short', 'date:long time:long', 'date:medium time:short wrap:short',
                 'date:medium time:short wrap:long', 'date:medium time:short wrap:full',
                 'skeleton:yMMMEEEd', 'yMMMMdEEEE', 'MMMMd', 'yMMMM', 'MMMEd', 'EEEE', 'hm', 'Hm', 'jm',
                 'Hms', 'Ehm', 'date:full context:begin-sentence', 'yMMMMd context:begin-sentence',
                 'date:full context:standalone', 'date:full context:ui-list-or-menu',
                 'date:full context:middle-of-text', 'date:long calendar:buddhist',
                 'date:long calendar:japanese', 'date:full calendar:persian', 'date:long calendar:iso8601',
                 'date:long calendar:gregorian', 'date:long calendar:nope', 'Bh', 'Bhm', 'BBBBh',
                 'yMd', 'yMMMEd', 'MMMMEEEEd', 'yM', 'hms', 'jms', 'GyMMMd', 'date:yMd time:hm',
                 'hmz', 'Hmzzzz', 'jmv', 'time:hmz', 'yMMMMEEEEdjmm']:
        t('datetime', lines(opts), stamps, loc)
for zone in ['America/Los_Angeles', 'Europe/Berlin', 'Asia/Tokyo', 'Australia/Sydney', 'UTC', 'Not/AZone']:
    t('datetime', lines('full'), dict(stamps, website={'timeZone': zone}))
    t('datetime', lines('long'), dict(stamps, website={'timeZone': zone}), 'de-DE')
t('datetime', '{x|datetime}|{y|datetime}|{z|datetime}|{w|datetime long}', {'x': 'abc', 'y': None, 'z': '1582571080000', 'w': True})

# --- datetime-interval
S = T1
ends = {'e0': S, 'e1': S + 30000, 'e2': S + 20000000, 'e3': S + 3 * 3600000, 'e4': S - 13 * 3600000,
        'e5': S + 86400000, 'e6': S + 10020000000, 'e7': S + 110020000000}
ivl = lambda opts: '\n'.join('{s,%s|datetime-interval %s}' % (k, opts) for k in ends)
for loc in ['en', 'de-DE', 'fr-FR', 'ja', 'es']:
    for opts in ['', 'yMMM', 'yMMMd', 'yMMMMd', 'yMMMMdEEEE', 'MMMd', 'MMMEd', 'EEE', 'hm', 'Hm',
                 'jm', 'yMd', 'yMMMdjm', 'skeleton:yMMMd date:yMMMMd', 'date:yMMMMd time:Hm',
                 'time:hm', 'context:begin-sentence yMMMMEEEEd', 'hmz', 'm', 's', 'yMMMdhms', 'y',
                 'MMMM', 'd']:
        t('interval', ivl(opts), dict(ends, s=S), loc)
t('interval', '{s,e|datetime-interval}|{s|datetime-interval}|{s,x|datetime-interval}', {'s': S, 'e': S + 86400000, 'x': 'abc'})

# --- relative-time
H, D = 3600000, 86400000
deltas = [0, 500, -500, 20000, -45000, 59000, 61000, -90000, 30 * 60000, 59 * 60000, H, -H, 2 * H,
          -2 * H - 1, 23 * H, 25 * H, -25 * H, D, -D, 2 * D, -2 * D, 3 * D, 6 * D, 7 * D, -7 * D,
          13 * D, 14 * D, 20 * D, 27 * D, 31 * D, -31 * D, 45 * D, 59 * D, 180 * D, 364 * D, 365 * D,
          -365 * D, 500 * D, 730 * D, -3000 * D, int(11.5 * D), 36 * H]
rel_data = {'t%d' % i: NOW + d for i, d in enumerate(deltas)}
rel = lambda opts: '\n'.join('{t%d|relative-time %s}' % (i, opts) for i in range(len(deltas)))
for loc in ['en', 'de-DE', 'fr-FR', 'ja', 'es', 'pl']:
    for opts in ['', 'allowWeeks:true', 'context:begin-sentence', 'numericOnly:true',
                 'alwaysNow:true numericOnly:true', 'field:day', 'field:week', 'field:month',
                 'field:year', 'field:hour', 'field:minute', 'field:second', 'field:millis',
                 'width:short', 'width:narrow', 'maxfrac:1', 'minfrac:2', 'round:floor', 'round:up',
                 'maxsig:2', 'minsig:3', 'context:standalone', 'context:ui-list-or-menu',
                 'no-group field:minute', 'group:false field:second', 'dayOfWeek:true allowWeeks:true',
                 'dayOfWeek:true field:week width:short', 'dayOfWeek:true field:week numericOnly:true',
                 'dayOfWeek:true field:week width:narrow context:begin-sentence', 'dayOfWeek:true field:week maxfrac:1']:
        t('relative', rel(opts), rel_data, loc)
pairs = [(1509647217000, 1510641417000), (1502298000000, 1502305200000), (1706659200000, 1709251200000),
         (1709251200000, 1706659200000), (1704067199000, 1704067201000), (1577836800000, 1735689600000),
         (1582934400000, 1614470400000), (1706745599000, 1706745601000)]
pair_data = {'p%d' % i: list(p) for i, p in enumerate(pairs)}
t('relative', '\n'.join('{p%d.0,p%d.1|relative-time}|{p%d.0,p%d.1|relative-time allowWeeks:true}' % (i, i, i, i)
                        for i in range(len(pairs))), pair_data)
t('relative', '{x|relative-time}|{y|relative-time}|{z,x|relative-time}', {'x': 'abc', 'y': None, 'z': NOW})

# --- timesince
since = [NOW, NOW - 59999, NOW - 60000, NOW - 3599999, NOW - H, NOW - 2 * H, NOW - D + 1, NOW - D,
         NOW - 6 * D, NOW - 7 * D, NOW - 29 * D, NOW - 30 * D, NOW - 364 * D, NOW - 365 * D,
         NOW - 3650 * D, NOW + D, NOW + 1000 * D, -607001400000, 1.5, -8.64e15]
t('timesince', '\n'.join('{t%d|timesince}' % i for i in range(len(since))), {'t%d' % i: v for i, v in enumerate(since)})
t('timesince', '{a|timesince}|{b|timesince}|{c|timesince}', {'a': 'abc', 'b': None, 'c': '1577987019000'}, now=1627849845000)

# --- nested message formatters
for loc in ['en', 'de-DE', 'fr-FR', 'ja']:
    for zone in ['America/New_York', 'America/Los_Angeles', 'Europe/Paris']:
        for opts in [[], ['full'], ['date:short', 'time:full'], ['yMMMd'], ['date:long', 'calendar:japanese'],
                     ['context:begin-sentence', 'EEEE']]:
            nested_cases.append(('datetime', loc, zone, [1582663910000], opts))
        for opts in [[], ['yMMMMdEEEE'], ['EEE'], ['hm'], ['yMMM']]:
            nested_cases.append(('interval', loc, zone, [1582663910000, 1583763910000], opts))
            nested_cases.append(('interval', loc, zone, [1582663910000, 1582673910000], opts))
nested_cases.append(('datetime', 'en', 'America/New_York', [None], ['full']))
nested_cases.append(('datetime', 'en', 'America/New_York', ['abc'], ['full']))
nested_cases.append(('interval', 'en', 'America/New_York', [1582663910000, None], []))


def nested_template(kind, args, options):
    tag = '{0 datetime%s}' % ''.join(' ' + o for o in options) if kind == 'datetime' else \
        '{0;1 datetime-interval%s}' % ''.join(' ' + o for o in options)
    names = ' '.join('a%d' % i for i in range(len(args)))
    data = {'msg': tag}
    for i, a in enumerate(args):
        if a is not None:
            data['a%d' % i] = a
    return '{msg|message %s}' % names, data


def batch(cases):
    lines = [json.dumps({'template': tp, 'data': d, 'locale': loc, 'now': now}) for (loc, now, tp, d) in cases]
    out = subprocess.run(['node', REF_BATCH], input='\n'.join(lines) + '\n', capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines()]


def ours(bin_path, loc, now, template, data):
    with tempfile.TemporaryDirectory() as d:
        open(f'{d}/t.html', 'w').write(template)
        json.dump(data, open(f'{d}/d.json', 'w'))
        args = [bin_path, 'render', f'{d}/t.html', '--data', f'{d}/d.json', '--locale', loc, '--now', str(now)]
        return subprocess.run(args, capture_output=True, text=True).stdout


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else 'show'
    all_cases = [(loc, now, tp, d) for (_, loc, now, tp, d) in tpl_cases]
    nested_tpls = []
    for (kind, loc, zone, args, opts) in nested_cases:
        tp, d = nested_template(kind, args, opts)
        d['website'] = {'timeZone': zone}
        nested_tpls.append((loc, NOW, tp, d))
    results = batch(all_cases + nested_tpls)
    bad = [r for r in results if r['code'] != 0]
    for r in bad:
        print('reference error:', r, file=sys.stderr)
    ref_tpl = results[:len(all_cases)]
    ref_nested = results[len(all_cases):]
    if mode == 'show':
        for c, r in zip(all_cases, ref_tpl):
            print(c[0], c[2], '=>', repr(r['out']))
        for c, r in zip(nested_cases, ref_nested):
            print(c, '=>', repr(r['out']))
        return
    bin_path = sys.argv[3] if len(sys.argv) > 3 else None
    rows, nrows, dropped = [], [], 0
    for (fam, loc, now, tp, d), r in zip(tpl_cases, ref_tpl):
        # Compare line by line so that one known delta does not drop a whole table.
        exp_lines = r['out'].split('\n')
        tp_lines = tp.split('\n')
        if bin_path and len(exp_lines) == len(tp_lines):
            got_lines = ours(bin_path, loc, now, tp, d).split('\n')
            keep_t, keep_e = [], []
            for tl, el, gl in zip(tp_lines, exp_lines, got_lines + [''] * len(exp_lines)):
                if el == gl:
                    keep_t.append(tl)
                    keep_e.append(el)
                else:
                    dropped += 1
                    print(f'DELTA [{loc}] {tl}\n   ref: {el!r}\n   our: {gl!r}', file=sys.stderr)
            if keep_t:
                rows.append((fam, loc, now, '\n'.join(keep_t), d, '\n'.join(keep_e)))
        else:
            rows.append((fam, loc, now, tp, d, r['out']))
    for (kind, loc, zone, args, opts), r in zip(nested_cases, ref_nested):
        nrows.append((kind, loc, zone, args, opts, r['out']))
    print(f'{len(rows)} template rows, {len(nrows)} nested rows, {dropped} deltas left out', file=sys.stderr)

    def rs(s):
        text = json.dumps(s, ensure_ascii=False)
        for c in '\u200b\u200c\u200d\u2060\u00ad\ufeff':
            text = text.replace(c, '\\u{%X}' % ord(c))
        return text

    with open(sys.argv[2], 'w') as f:
        f.write('//! Expected outputs, generated by tests_data_gen.py from runs of the reference engine\n')
        f.write('//! (@squarespace/template-engine 2.10.10 with @phensley/cldr 1.14.0).\n\n')
        datas = []
        index = {}
        for fam, loc, now, tp, d, out in rows:
            key = json.dumps(d)
            if key not in index:
                index[key] = len(datas)
                datas.append(key)
        f.write('/// Data (JSON) shared by the template cases.\n')
        f.write('pub(super) const DATA: &[&str] = &[\n')
        for d in datas:
            f.write(f'    {rs(d)},\n')
        f.write('];\n\n')
        f.write('/// (family, locale, now, template, index into DATA, output)\n')
        f.write('pub(super) type Case = (&\'static str, &\'static str, f64, &\'static str, usize, &\'static str);\n\n')
        f.write('pub(super) const TEMPLATES: &[Case] = &[\n')
        seen = set()
        for fam, loc, now, tp, d, out in rows:
            key = (loc, now, tp, json.dumps(d))
            if key in seen:
                continue
            seen.add(key)
            f.write(f'    ({rs(fam)}, {rs(loc)}, {now}.0, {rs(tp)}, {index[json.dumps(d)]}, {rs(out)}),\n')
        f.write('];\n\n')
        f.write('/// (kind, locale, zone, arguments as JSON, options, output)\n')
        f.write('pub(super) type Nested = (&\'static str, &\'static str, &\'static str, &\'static str, &\'static [&\'static str], &\'static str);\n\n')
        f.write('pub(super) const NESTED: &[Nested] = &[\n')
        for kind, loc, zone, args, opts, out in nrows:
            o = ', '.join(rs(x) for x in opts)
            f.write(f'    ({rs(kind)}, {rs(loc)}, {rs(zone)}, {rs(json.dumps(args))}, &[{o}], {rs(out)}),\n')
        f.write('];\n')


main()
