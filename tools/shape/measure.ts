/**
 * Measures the shape of the source: each file's lines, each class's and each function's
 * (declaration, method, constructor, accessor, arrow, function expression) first and last
 * line, read from the TypeScript parser's tree. Parse only: no program, no type check, so a
 * whole tree is measured in well under a second.
 *
 * A span runs from the line of the node's first token (its leading comment not counted) to
 * the line of its last, both included; a function's span includes the functions nested in
 * it, each of which is measured on its own as well.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface Span {
  /**
   * What a reader would search for, qualified by the classes, functions and named object
   * literals around it: `Class`, `Class.method`, `outer.inner`, `table.handler`, `f(…) callback`.
   */
  readonly name: string;
  /** The file, as given to measureSource (relative to the measured root by measureTree). */
  readonly file: string;
  /** 1-based line of the first token. */
  readonly line: number;
  readonly lines: number;
}

export interface FileShape {
  readonly file: string;
  readonly lines: number;
  readonly classes: readonly Span[];
  readonly functions: readonly Span[];
}

/** Lines of a text as `wc -l` would count them, a last line without a newline included. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

function propertyName(name: ts.PropertyName | ts.BindingName, sf: ts.SourceFile): string {
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return name.getText(sf);
}

/** The last name of a callee: `foo` for `a.b.foo(...)`, `describe` for `describe(...)`. */
function calleeName(call: ts.CallExpression | ts.NewExpression, sf: ts.SourceFile): string {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return callee.getText(sf).slice(0, 30);
}

/**
 * The name a node would be known by, from its own name or from where it stands (the variable,
 * property or argument it is the value of); undefined for nodes that are neither a class nor
 * a function.
 */
function ownName(node: ts.Node, sf: ts.SourceFile): string | undefined {
  if (ts.isClassDeclaration(node) || ts.isFunctionDeclaration(node)) {
    return node.name?.text ?? 'default';
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
    const prefix = ts.isGetAccessor(node) ? 'get ' : ts.isSetAccessor(node) ? 'set ' : '';
    return prefix + propertyName(node.name, sf);
  }
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isClassExpression(node)) {
    if (!ts.isArrowFunction(node) && node.name) return node.name.text;
    let at: ts.Node = node.parent;
    while (ts.isParenthesizedExpression(at) || ts.isAsExpression(at) || ts.isSatisfiesExpression(at)) {
      at = at.parent;
    }
    if (ts.isVariableDeclaration(at)) return propertyName(at.name, sf);
    if (ts.isPropertyAssignment(at) || ts.isPropertyDeclaration(at)) return propertyName(at.name, sf);
    if (ts.isBinaryExpression(at) && at.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      return at.left.getText(sf).replace(/^this\./, '');
    }
    if (ts.isCallExpression(at) || ts.isNewExpression(at)) return `${calleeName(at, sf)}(…) callback`;
    if (ts.isExportAssignment(at)) return 'default';
    return ts.isClassExpression(node) ? '(class)' : '(anonymous)';
  }
  return undefined;
}

const isClass = (node: ts.Node) => ts.isClassDeclaration(node) || ts.isClassExpression(node);

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessor(node) ||
      ts.isSetAccessor(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node)) &&
    node.body !== undefined
  );
}

/** Measures one file's text; `file` names it in the spans. */
export function measureSource(file: string, text: string): FileShape {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const classes: Span[] = [];
  const functions: Span[] = [];
  const span = (node: ts.Node, name: string): Span => {
    const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
    const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
    return { name, file, line: first + 1, lines: last - first + 1 };
  };
  const visit = (node: ts.Node, scope: readonly string[]): void => {
    let inner = scope;
    const name = isClass(node) || isFunction(node) ? ownName(node, sf) : undefined;
    if (name !== undefined) {
      const qualified = [...scope, name].join('.');
      (isClass(node) ? classes : functions).push(span(node, qualified));
      inner = [...scope, name];
    } else if (
      ts.isObjectLiteralExpression(node) &&
      (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent))
    ) {
      inner = [...scope, propertyName(node.parent.name, sf)];
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(sf, []);
  return { file, lines: countLines(text), classes, functions };
}

const SOURCE = /\.(ts|tsx|mts|cts)$/;

/** Every TypeScript source under a path (a file or a folder), declaration files left out. */
export function sourceFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return SOURCE.test(path) ? [path] : [];
  return readdirSync(path)
    .sort()
    .flatMap((entry) => (entry === 'node_modules' ? [] : sourceFiles(join(path, entry))))
    .filter((f) => SOURCE.test(f) && !f.endsWith('.d.ts'));
}

/** Measures every source file under the given paths, naming each file relative to `root`. */
export function measureTree(root: string, paths: readonly string[]): FileShape[] {
  return paths
    .flatMap((p) => sourceFiles(join(root, p)))
    .map((abs) => measureSource(relative(root, abs), readFileSync(abs, 'utf8')));
}

export interface Limits {
  readonly fileLines: number;
  readonly classLines: number;
  readonly functionLines: number;
}

/** Issue targets: no class over about 300 lines, no function over about 60. */
export const LIMITS: Limits = { fileLines: 300, classLines: 300, functionLines: 60 };

export interface ShapeReport {
  readonly files: number;
  readonly bigFiles: readonly { file: string; lines: number }[];
  readonly bigClasses: readonly Span[];
  readonly bigFunctions: readonly Span[];
  readonly largestClass: Span | undefined;
  readonly largestFunction: Span | undefined;
}

const largestFirst = <T extends { lines: number }>(a: T, b: T) => b.lines - a.lines;

/** What is over the limits, largest first, and the largest class and function overall. */
export function report(shapes: readonly FileShape[], limits: Limits = LIMITS): ShapeReport {
  const classes = shapes.flatMap((s) => s.classes).sort(largestFirst);
  const functions = shapes.flatMap((s) => s.functions).sort(largestFirst);
  return {
    files: shapes.length,
    bigFiles: shapes
      .filter((s) => s.lines > limits.fileLines)
      .map(({ file, lines }) => ({ file, lines }))
      .sort(largestFirst),
    bigClasses: classes.filter((c) => c.lines > limits.classLines),
    bigFunctions: functions.filter((f) => f.lines > limits.functionLines),
    largestClass: classes[0],
    largestFunction: functions[0],
  };
}
