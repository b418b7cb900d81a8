import path from 'node:path';
import { type Node, type SourceFile, SyntaxKind } from 'typescript/unstable/ast';
import { API } from 'typescript/unstable/sync';

/** One function (declaration, arrow, expression, method, constructor, accessor) and its length in lines, signature to closing brace. */
export interface FunctionLength {
  file: string;
  line: number;
  name: string;
  lines: number;
}

const FUNCTION_KINDS = new Set<SyntaxKind>([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.ArrowFunction,
  SyntaxKind.FunctionExpression,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
]);

type Named = Node & { name?: { text?: unknown } };

const textOf = (n: Named | undefined): string | undefined => (typeof n?.name?.text === 'string' ? n.name.text : undefined);

/** A function's own name, else the name it is bound to (`const f = () => …`, a property), with its class. */
const nameOf = (n: Node): string => {
  const own = n.kind === SyntaxKind.Constructor ? 'constructor' : (textOf(n as Named) ?? textOf(n.parent as Named) ?? '<anonymous>');
  for (let p: Node | undefined = n.parent; p; p = p.parent) {
    if (p.kind === SyntaxKind.ClassDeclaration) return `${textOf(p as Named) ?? '<class>'}.${own}`;
  }
  return own;
};

const lengthsIn = (sf: SourceFile, file: string): FunctionLength[] => {
  const out: FunctionLength[] = [];
  const visit = (n: Node): void => {
    if (FUNCTION_KINDS.has(n.kind)) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.end).line;
      out.push({ file, line: first + 1, name: nameOf(n), lines: last - first + 1 });
    }
    n.forEachChild(visit);
  };
  sf.forEachChild(visit);
  return out;
};

/**
 * Every function of the project at `root` (its tsconfig.json) whose file lies under one of `dirs`,
 * parsed by the TypeScript compiler (its native API: TypeScript 7 has no JavaScript parser).
 */
export const functionLengths = (root: string, dirs: readonly string[]): FunctionLength[] => {
  const api = new API({ cwd: root });
  try {
    const project = api.updateSnapshot({ openProject: path.join(root, 'tsconfig.json') }).getProjects()[0];
    if (!project) throw new Error(`no TypeScript project at ${root}`);
    const out: FunctionLength[] = [];
    for (const name of project.program.getSourceFileNames()) {
      const file = path.relative(root, name).split(path.sep).join('/');
      if (!dirs.some((d) => file.startsWith(`${d}/`))) continue;
      const sf = project.program.getSourceFile(name);
      if (sf) out.push(...lengthsIn(sf, file));
    }
    return out;
  } finally {
    api.close();
  }
};
