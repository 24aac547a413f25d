package p;

public interface Named {
    /** The label. */
    String label();

    default String twice() { return label() + label(); }
}

@interface Tag {
    String value() default "";
}
