package dev.tributary.differential;

/** The value of an arrangement that has keys only ({@code arrangeBySelf}): carries no information. */
public enum Unit {
    UNIT
}
