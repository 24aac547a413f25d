package bank;

import java.util.List;

/** An account. */
public class Account {
    /** The largest balance. */
    public static final long MAX = 1_000_000L;
    private String owner, iban;
    private final List<String> log;

    enum State { OPEN, CLOSED; boolean live() { return this == OPEN; } }

    public Account(String owner) {
        int local = 0;
        this.owner = owner;
    }
}

interface Limits { int DAILY = 500; }

enum Currency {
    EUR("€"), USD("$");
    private final String sign;
    Currency(String sign) { this.sign = sign; }
}

record Money(long cents, Currency currency) {}
