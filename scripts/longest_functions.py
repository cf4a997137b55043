"""The longest functions of textfeed's C++ sources (tests and build folders left out).

    /usr/bin/python3 scripts/longest_functions.py [ROOT [COUNT]]

A brace matcher over the code with comments and strings blanked out: a function body is a '{'
opened outside any other function body right after a parameter list (with const, noexcept,
a trailing return type or a constructor's initializers between). Lambdas count toward the
function they are in. An estimate for reviews, not a parser."""
import re, sys, pathlib
root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1])
top = int(sys.argv[2]) if len(sys.argv) > 2 else 15
rows = []
for p in root.rglob('*'):
    if p.suffix not in ('.cc', '.h') or any(x == 'tests' or x.startswith(('build', '.')) for x in p.relative_to(root).parts):
        continue
    src = p.read_text(errors='replace')
    # blank comments and strings, keeping newlines
    src = re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                 lambda m: re.sub(r'[^\n]', ' ', m.group(0)), src, flags=re.S)
    stack = []  # (kind, start_line, name)
    line = 1
    i = 0
    while i < len(src):
        c = src[i]
        if c == '\n': line += 1
        elif c == '{':
            head = src[max(0, i - 400):i]
            in_func = any(k == 'f' for k, _, _ in stack)
            m = re.search(r'([~\w:]+(?:<[^<>]*>)?)\s*\(([^()]|\([^()]*\))*\)\s*(?:const|noexcept|override|final|->\s*[\w:<>,\s*&]+|\s)*(?::[^{;]*)?$', head, re.S)
            if not in_func and m:
                name = m.group(1)
                if name in ('if', 'for', 'while', 'switch', 'catch', 'return', 'sizeof', 'decltype'):
                    stack.append(('o', line, ''))
                else:
                    stack.append(('f', line, name))
            else:
                stack.append(('o', line, ''))
        elif c == '}':
            if stack:
                k, start, name = stack.pop()
                if k == 'f':
                    rows.append((line - start + 1, f'{p.relative_to(root)}:{start}', name))
        i += 1
rows.sort(reverse=True)
for n, where, name in rows[:top]:
    print(f'{n:5d}  {name}  {where}')
print(f'functions over 60 lines: {sum(1 for r in rows if r[0] > 60)}')
