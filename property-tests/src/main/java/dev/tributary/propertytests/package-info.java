/**
 * Cross-module jqwik oracle tests: random dataflows checked against reference computations.
 */
package dev.tributary.propertytests;
