// Truth.java writes the true call edges of a Java repository, from javac's
// own attribution (the compiler tree API, JDK 17+), in the truth format of
// cmd/dossier-xrefeval:
//
//   {"repo", "commit", "lang": "java", "defs": [{path, line, end, name, container, kind}],
//    "edges": [{caller, callee, line}]}
//
//   java Truth.java --repo DIR [--name owner/name] [--src DIR]... [-o OUT.json]
//
// --src are source roots under DIR (default: every src/main/java and
// src/test/java); they are compiled together with no class path, so a call
// whose receiver's type comes from a missing library stays unresolved and
// is no edge (javac attributes the rest). A method invocation, an explicit
// this(...)/super(...), a method reference and a `new` of a class with a
// declared constructor (an anonymous class's base's, for `new T() {...}`)
// are edges to the method or constructor javac selects, overloads told
// apart, when it is declared in the given sources; the super() javac adds
// to a constructor that calls none is not.
// The caller is the innermost named method or constructor around the call:
// lambdas and anonymous classes belong to it, as in dossier. Container is
// the simple name of the declaring class; a constructor is named as it.
import com.sun.source.tree.*;
import com.sun.source.util.*;
import java.io.*;
import java.nio.file.*;
import java.util.*;
import javax.lang.model.element.*;
import javax.tools.*;

public class Truth {
    record Def(String path, int line, int end, String name, String container, String kind) {}

    record Edge(int caller, int callee, int line) {}

    static final List<Def> defs = new ArrayList<>();
    static final Map<Element, Integer> ids = new HashMap<>();
    static final Set<String> edges = new LinkedHashSet<>();

    public static void main(String[] args) throws Exception {
        String repo = null, name = null, out = null;
        List<String> srcs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--repo" -> repo = args[++i];
                case "--name" -> name = args[++i];
                case "--src" -> srcs.add(args[++i]);
                case "-o" -> out = args[++i];
                default -> usage("unknown argument " + args[i]);
            }
        }
        if (repo == null) usage("--repo is required");
        Path root = Paths.get(repo).toAbsolutePath().normalize();
        if (name == null) name = root.getFileName().toString();
        List<Path> files = new ArrayList<>();
        try (var walk = Files.walk(root)) {
            walk.filter(p -> p.toString().endsWith(".java") && inRoots(root, p, srcs)).sorted().forEach(files::add);
        }
        if (files.isEmpty()) usage("no .java files under the source roots of " + root);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager fm = javac.getStandardFileManager(null, null, null);
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        JavacTask task = (JavacTask) javac.getTask(null, fm, diags,
                List.of("-proc:none", "-Xlint:none", "-implicit:none", "-Xmaxerrs", "0"), null,
                fm.getJavaFileObjectsFromPaths(files));
        List<CompilationUnitTree> units = new ArrayList<>();
        task.parse().forEach(units::add);
        task.analyze();
        Trees trees = Trees.instance(task);
        for (CompilationUnitTree u : units) new Defs(trees, u, root).scan(u, null);
        for (CompilationUnitTree u : units) new Calls(trees, u).scan(u, null);
        long errors = diags.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR).count();
        System.err.printf("%d files, %d defs, %d edges (%d compiler errors: missing libraries)%n",
                files.size(), defs.size(), edges.size(), errors);
        String commit = git(root);
        try (PrintStream w = out == null ? System.out : new PrintStream(new FileOutputStream(out), false, "UTF-8")) {
            w.print("{\"repo\":" + q(name) + ",\"commit\":" + q(commit) + ",\"lang\":\"java\",\"defs\":[");
            for (int i = 0; i < defs.size(); i++) {
                Def d = defs.get(i);
                w.print((i > 0 ? "," : "") + "{\"path\":" + q(d.path) + ",\"line\":" + d.line + ",\"end\":" + d.end
                        + ",\"name\":" + q(d.name) + ",\"container\":" + q(d.container) + ",\"kind\":" + q(d.kind) + "}");
            }
            w.print("],\"edges\":[");
            int i = 0;
            for (String e : edges) w.print((i++ > 0 ? "," : "") + e);
            w.println("]}");
        }
    }

    static boolean inRoots(Path root, Path p, List<String> srcs) {
        String rel = root.relativize(p).toString().replace('\\', '/');
        if (srcs.isEmpty()) return rel.contains("src/main/java/") || rel.contains("src/test/java/");
        for (String s : srcs) if (rel.startsWith(s.endsWith("/") ? s : s + "/")) return true;
        return false;
    }

    static void usage(String why) {
        System.err.println("javatruth: " + why
                + "\nusage: java Truth.java --repo DIR [--name owner/name] [--src DIR]... [-o OUT.json]");
        System.exit(2);
    }

    static String git(Path root) {
        try {
            Process p = new ProcessBuilder("git", "-C", root.toString(), "rev-parse", "HEAD").start();
            return new String(p.getInputStream().readAllBytes()).trim();
        } catch (IOException e) {
            return "";
        }
    }

    static String q(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static int line(CompilationUnitTree u, long pos) {
        return (int) u.getLineMap().getLineNumber(pos);
    }

    /** Defs records every method and constructor written in the sources (not those of anonymous classes). */
    static class Defs extends TreePathScanner<Void, Void> {
        final Trees trees;
        final CompilationUnitTree u;
        final String path;
        final String text;

        Defs(Trees trees, CompilationUnitTree u, Path root) throws IOException {
            this.trees = trees;
            this.u = u;
            Path p = Paths.get(u.getSourceFile().toUri());
            this.path = root.relativize(p).toString().replace('\\', '/');
            this.text = u.getSourceFile().getCharContent(true).toString();
        }

        @Override
        public Void visitNewClass(NewClassTree t, Void v) {
            scan(t.getArguments(), v); // an anonymous class's members are no definitions
            return null;
        }

        @Override
        public Void visitMethod(MethodTree t, Void v) {
            Element e = trees.getElement(getCurrentPath());
            ClassTree cls = (ClassTree) getCurrentPath().getParentPath().getLeaf();
            String container = cls.getSimpleName().toString();
            if (e != null && !container.isEmpty() && trees.getSourcePositions().getStartPosition(u, t) >= 0) {
                boolean ctor = t.getName().contentEquals("<init>");
                if (!ctor || !isGenerated(t)) {
                    String name = ctor ? container : t.getName().toString();
                    long end = trees.getSourcePositions().getEndPosition(u, t);
                    String kind = ctor ? "constructor" : t.getBody() == null ? "interface method" : "method";
                    ids.put(e, defs.size());
                    defs.add(new Def(path, line(u, namePos(t, name)), line(u, end), name, container, kind));
                }
            }
            return super.visitMethod(t, v);
        }

        /** isGenerated tells the default constructor javac adds, which has no text of its own. */
        boolean isGenerated(MethodTree t) {
            return trees.getSourcePositions().getEndPosition(u, t) < 0
                    || trees.getSourcePositions().getStartPosition(u, t) == trees.getSourcePositions().getStartPosition(u, getCurrentPath().getParentPath().getLeaf());
        }

        /** namePos is the offset of the method's name: after its modifiers, the name followed by "(". */
        long namePos(MethodTree t, String name) {
            long from = trees.getSourcePositions().getEndPosition(u, t.getModifiers());
            if (from < 0) from = trees.getSourcePositions().getStartPosition(u, t);
            var m = java.util.regex.Pattern.compile("\\b" + java.util.regex.Pattern.quote(name) + "\\s*\\(").matcher(text);
            return m.find((int) Math.max(from, 0)) ? m.start() : trees.getSourcePositions().getStartPosition(u, t);
        }
    }

    /** Calls records the edges from each named method or constructor. */
    static class Calls extends TreePathScanner<Void, Void> {
        final Trees trees;
        final CompilationUnitTree u;

        Calls(Trees trees, CompilationUnitTree u) {
            this.trees = trees;
            this.u = u;
        }

        @Override
        public Void visitMethodInvocation(MethodInvocationTree t, Void v) {
            if (written(t.getMethodSelect()) || inAnonymousClass()) {
                edge(t, new TreePath(getCurrentPath(), t.getMethodSelect()));
            }
            return super.visitMethodInvocation(t, v);
        }

        @Override
        public Void visitMemberReference(MemberReferenceTree t, Void v) {
            edge(t, getCurrentPath());
            return super.visitMemberReference(t, v);
        }

        @Override
        public Void visitNewClass(NewClassTree t, Void v) {
            if (t.getClassBody() == null) edge(t, getCurrentPath());
            return super.visitNewClass(t, v);
        }

        /**
         * inAnonymousClass tells the super(...) javac adds to an anonymous class's constructor: `new T(args) {}`
         * calls T's constructor, as it does without a body.
         */
        boolean inAnonymousClass() {
            for (TreePath p = getCurrentPath(); p != null; p = p.getParentPath()) {
                if (p.getLeaf() instanceof MethodTree) {
                    return p.getParentPath().getLeaf() instanceof ClassTree c && c.getSimpleName().isEmpty();
                }
            }
            return false;
        }

        /** written tells a call the source spells from the super() javac adds to a constructor. */
        boolean written(ExpressionTree sel) {
            String name = sel instanceof MemberSelectTree m ? m.getIdentifier().toString()
                    : ((IdentifierTree) sel).getName().toString();
            long end = trees.getSourcePositions().getEndPosition(u, sel);
            try {
                CharSequence text = u.getSourceFile().getCharContent(true);
                return end >= name.length() && text.subSequence((int) end - name.length(), (int) end).toString().equals(name);
            } catch (IOException e) {
                return true;
            }
        }

        void edge(Tree t, TreePath named) {
            Element callee = trees.getElement(named);
            Integer to = callee == null ? null : ids.get(callee);
            Integer from = caller();
            if (to == null || from == null) return;
            int line = line(u, trees.getSourcePositions().getStartPosition(u, t));
            edges.add("{\"caller\":" + from + ",\"callee\":" + to + ",\"line\":" + line + "}");
        }

        /** caller is the innermost method around the current node that is a definition (no anonymous class's). */
        Integer caller() {
            for (TreePath p = getCurrentPath(); p != null; p = p.getParentPath()) {
                if (p.getLeaf() instanceof MethodTree) {
                    Integer id = ids.get(trees.getElement(p));
                    if (id != null) return id;
                }
            }
            return null;
        }
    }
}
