package com.example.zoo;

import java.util.ArrayList;
import java.util.List;

/**
 * A zoo with animals.
 */
public class Zoo {
    private final List<String> animals = new ArrayList<>();

    /** Creates an empty zoo. */
    public Zoo() {
    }

    public void add(String name) {
        animals.add(name);
    }

    public interface Keeper {
        void feed(String name);
    }

    static class Cage {
        int size() {
            return 4;
        }
    }
}

enum Diet {
    MEAT,
    PLANTS
}
