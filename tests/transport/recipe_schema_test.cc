// protocol.capnp's Recipe against the recipe's field table (augment::recipe_fields()): every row
// has its field, of its kind's type (an enum: one enumerant per name, at its value), and every
// Recipe field but the profile and the obsolete ones is some row's. A new option is one row plus
// its field in the schema; this test says which is missing.
#include <capnp/schema.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "augment/profile.h"
#include "transport/protocol.capnp.h"
#include "transport/wire.h"

namespace textfeed::transport {
namespace {

using capnp::schema::Type;

// The Recipe fields a row of `kind` named `name` travels in, with their type.
std::vector<std::pair<std::string, Type::Which>> wire_fields(const augment::RecipeField& f) {
  const std::string n = wire_field_name(f.name);
  switch (f.kind) {
    case FieldKind::kInt:
      return {{n, Type::INT32}};
    case FieldKind::kDouble:
      return {{n, Type::FLOAT64}};
    case FieldKind::kBool:
      return {{n, Type::BOOL}};
    case FieldKind::kEnum:
      return {{n, Type::ENUM}};
    case FieldKind::kFactor:
    case FieldKind::kShift:
      return {{n + "Lo", Type::FLOAT64}, {n + "Hi", Type::FLOAT64}};
    case FieldKind::kTriple:
      return {{n, Type::LIST}};
    case FieldKind::kText:
      return {{n, Type::TEXT}};
    case FieldKind::kTextList:
      return {{n, Type::LIST}};
    case FieldKind::kUint64:
      return {{n, Type::UINT64}};
  }
  return {};
}

TEST(RecipeSchemaTest, EveryRowHasItsFieldAndEveryFieldItsRow) {
  const capnp::StructSchema recipe = capnp::Schema::from<wire::Recipe>();
  std::set<std::string> covered = {"profile"};
  for (const augment::RecipeField& f : augment::recipe_fields()) {
    for (const auto& [name, type] : wire_fields(f)) {
      SCOPED_TRACE(std::string(f.name) + " -> Recipe." + name);
      KJ_IF_MAYBE (field, recipe.findFieldByName(name)) {
        const capnp::Type t = field->getType();
        ASSERT_EQ(t.which(), type);
        if (type == Type::LIST) {
          const Type::Which element = f.kind == FieldKind::kTextList ? Type::TEXT : Type::FLOAT32;
          EXPECT_EQ(t.asList().getElementType().which(), element);
        }
        if (type == Type::ENUM) {
          const auto enumerants = t.asEnum().getEnumerants();
          EXPECT_EQ(enumerants.size(), f.names.size());
          for (const EnumName& e : f.names) {
            ASSERT_LT(static_cast<unsigned>(e.value), enumerants.size()) << e.name;
            EXPECT_EQ(std::string(enumerants[e.value].getProto().getName().cStr()),
                      wire_field_name(e.name));
          }
        }
        covered.insert(name);
      } else {
        ADD_FAILURE() << "protocol.capnp's Recipe has no field " << name << " for row " << f.name;
      }
    }
  }
  for (const capnp::StructSchema::Field field : recipe.getFields()) {
    const std::string name = field.getProto().getName().cStr();
    if (name.rfind("obsolete", 0) == 0) continue;
    EXPECT_TRUE(covered.count(name)) << "Recipe." << name << " is no row of recipe_fields()";
  }
}

}  // namespace
}  // namespace textfeed::transport
