from django.urls import path

urlpatterns = [path("elsewhere/", lambda request: None, name="elsewhere")]
