package p;

public enum Color {
    RED("r") {
        @Override
        String code() { return "R"; }
    },
    GREEN("g");

    private final String c;

    Color(String c) { this.c = c; }

    String code() { return c; }

    static Color parse(String s) { return RED; }

    static class Helper {
        int n() { return 1; }
    }
}
