#include <string>

#define VERSION 3

namespace ui {
constexpr int kMaxWidgets = 64;
int live_widgets = 0;

class Widget {
 public:
  static const int kCount = 1;
  // Width in pixels.
  int width;
  void draw();
  std::string name_;

 private:
  bool dirty_ = false;
};

enum class Mode { On, Off };

void Widget::draw() {
  int local = width;
}
}  // namespace ui
