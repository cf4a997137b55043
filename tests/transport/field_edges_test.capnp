# The wire struct of tests/transport/field_edges_test.cc's dummy options table: one field per row,
# named and typed as transport/detail/field_codec.h says a row travels.
@0xf801bc4ab1bff8f2;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("textfeed::testing::wire");

enum Shade {
  light @0;
  darkGrey @1;
}

struct DummyOptions {
  knob @0 :Int32 = 5;           # int_field knob, [1, 10]: the dummy option
  count @1 :UInt32;             # an int on a UInt32, as the sampler's batchSize
  level @2 :Float64;
  name @3 :Text;
  tags @4 :List(Text);
  draws @5 :UInt64;
  shade @6 :Shade;
  on @7 :Bool;
  gainLo @8 :Float64;
  gainHi @9 :Float64;
  plane @10 :List(Float32);
}
